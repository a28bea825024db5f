"""POST /api/v1/kb/documents: a real worker ingests the upload; the job reports progress, outcomes and errors."""

from __future__ import annotations

import http.client
import json
import subprocess
import time
import urllib.parse
import uuid
from typing import Any

import psutil
import pytest
from django.conf import settings
from django.core.files.uploadedfile import SimpleUploadedFile, TemporaryUploadedFile
from django.test import Client

from conversations.api_keys import api_key_create
from cs_project.celery import app as celery_app
from knowledge.models import Document, IngestJob
from knowledge.readers import IngestError
from knowledge.selectors import chunk_search_hybrid
from knowledge.services import ingest_job_create
from knowledge.tasks import ingest_job_run_task
from tests.conftest import AsgiServer, ParkedQueue
from tests.knowledge.documents import pdf_drawing, reads_a_file

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.usefixtures("celery_worker")]

WARRANTY_ZH = "# 保修\n\n## 保修期\n手机整机保修一年，耳机保修六个月。\n".encode()
WARRANTY_EN = b"# Warranty\n\n## Period\nPhones have a one-year warranty.\n"


@pytest.fixture
def auth() -> dict[str, Any]:
    _, key = api_key_create(name="uploader")
    return {"HTTP_AUTHORIZATION": f"Bearer {key}"}


def upload(client: Client, auth: dict[str, Any], files: list[tuple[str, bytes]], **fields: str) -> Any:
    data: dict[str, Any] = {"file": [SimpleUploadedFile(name, content) for name, content in files], **fields}
    return client.post("/api/v1/kb/documents", data, **auth)


def job_finished(client: Client, auth: dict[str, Any], url: str, timeout: float = 60) -> dict[str, Any]:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        body = client.get(url, **auth).json()
        if body["status"] in ("succeeded", "partial", "failed"):
            return body
        time.sleep(0.2)
    raise AssertionError(f"job still {body['status']} after {timeout} s")


def test_an_upload_is_ingested_in_the_background_and_searchable(client: Client, auth: dict[str, Any]) -> None:
    response = upload(client, auth, [("warranty_zh.md", WARRANTY_ZH), ("warranty_en.md", WARRANTY_EN)], kb="help")

    assert response.status_code == 202
    body = response.json()
    assert response["Location"] == body["url"] == f"/api/v1/kb/jobs/{body['job_id']}"
    job = job_finished(client, auth, body["url"])

    assert job["status"] == "succeeded" and job["progress"] == 1.0 and job["knowledge_base"] == "help"
    assert [(f["name"], f["outcome"], f["error"]) for f in job["files"]] == [
        ("warranty_zh.md", "added", None),
        ("warranty_en.md", "added", None),
    ]
    assert {d.language for d in Document.objects.filter(knowledge_base__name="help")} == {"zh", "en"}
    results, miss = chunk_search_hybrid(query="耳机保修多久", kb="help", lang="zh")
    assert not miss and "六个月" in results[0].text
    assert not IngestJob.objects.get().files.exclude(content=b"").exists()  # bytes are dropped once ingested


def test_a_bad_file_in_an_upload_is_reported_and_the_rest_ingested(client: Client, auth: dict[str, Any]) -> None:
    response = upload(client, auth, [("ok.md", WARRANTY_EN), ("photo.txt", b"\x89PNG\r\n\x1a\n\x00\x00")])

    job = job_finished(client, auth, response.json()["url"])

    assert job["status"] == "partial"
    assert job["files"][0]["outcome"] == "added"
    assert job["files"][1]["outcome"] == "failed" and "binary content" in job["files"][1]["error"]
    assert Document.objects.count() == 1


def test_the_same_upload_twice_changes_nothing(client: Client, auth: dict[str, Any]) -> None:
    first = job_finished(client, auth, upload(client, auth, [("w.md", WARRANTY_EN)]).json()["url"])
    second = job_finished(client, auth, upload(client, auth, [("w.md", WARRANTY_EN)]).json()["url"])

    assert first["files"][0]["outcome"] == "added" and second["files"][0]["outcome"] == "unchanged"
    assert Document.objects.get().version == 1


@pytest.mark.parametrize(
    ("files", "fields", "field", "message"),
    [
        ([], {}, "file", "This list may not be empty"),
        ([("slides.pptx", b"PK")], {}, "file", "unsupported type .pptx"),
        ([("empty.md", b"")], {}, "file", "empty.md: empty"),
        ([("ok.md", WARRANTY_EN)], {"kb": "not a slug!"}, "kb", "letters, numbers"),
        ([("ok.md", WARRANTY_EN)], {"lang": "fr"}, "lang", "not a valid choice"),
        ([("ok.md", WARRANTY_EN)], {"audience": "staff"}, "audience", "not a valid choice"),
    ],
    ids=["no-file", "unsupported", "empty", "bad-kb", "bad-lang", "bad-audience"],
)
def test_bad_uploads_are_refused_at_once_and_nothing_is_queued(
    client: Client,
    auth: dict[str, Any],
    files: list[tuple[str, bytes]],
    fields: dict[str, str],
    field: str,
    message: str,
) -> None:
    response = upload(client, auth, files, **fields)

    assert response.status_code == 400
    error = response.json()["error"]
    assert error["field"] == field and message in error["message"]
    assert not IngestJob.objects.exists()


def test_a_too_large_file_is_refused(client: Client, auth: dict[str, Any], settings: Any) -> None:
    settings.KNOWLEDGE_MAX_FILE_BYTES = 1024 * 1024

    response = upload(client, auth, [("big.md", b"# Big\n" + b"x" * (1024 * 1024))])

    assert response.status_code == 400 and "larger than the 1 MB limit" in response.json()["error"]["message"]


def test_an_oversized_upload_is_refused_before_any_file_is_read(settings: Any) -> None:
    # given: a small file and one over the limit, both spooled to disk as Django does for large uploads
    settings.KNOWLEDGE_MAX_FILE_BYTES = 1024 * 1024
    small = TemporaryUploadedFile("small.md", "text/markdown", len(WARRANTY_EN), None)
    small.write(WARRANTY_EN)
    big = TemporaryUploadedFile("big.md", "text/markdown", 2 * 1024 * 1024, None)
    big.write(b"x" * (2 * 1024 * 1024))
    for file in (small, big):
        file.seek(0)

    with pytest.raises(IngestError, match="big.md: 2.0 MB is larger than the 1 MB limit"):
        ingest_job_create(kb_name="help", files=[small, big])

    # then: neither was read, and nothing was stored
    assert small.tell() == 0 and big.tell() == 0
    assert not IngestJob.objects.exists()


def test_files_with_the_same_name_are_each_kept(client: Client, auth: dict[str, Any]) -> None:
    response = upload(client, auth, [("notes.md", WARRANTY_ZH), ("notes.md", WARRANTY_EN)])

    assert response.status_code == 202
    job = IngestJob.objects.get(pk=response.json()["job_id"])
    assert sorted(f.size for f in job.files.all()) == sorted([len(WARRANTY_ZH), len(WARRANTY_EN)])
    # Both are read in turn (the second is a new version of the same source), and the worker is done
    # before the test's tables are emptied.
    finished = job_finished(client, auth, response.json()["url"])
    assert finished["status"] == "succeeded" and [f["outcome"] for f in finished["files"]] == ["added", "changed"]


def test_json_body_unknown_jobs_and_missing_keys_get_the_error_shape(client: Client, auth: dict[str, Any]) -> None:
    as_json = client.post("/api/v1/kb/documents", {"file": "x"}, content_type="application/json", **auth)
    unknown = client.get(f"/api/v1/kb/jobs/{uuid.uuid4()}", **auth)
    malformed = client.get("/api/v1/kb/jobs/not-a-uuid", **auth)
    anonymous = client.post("/api/v1/kb/documents", {"file": [SimpleUploadedFile("a.md", WARRANTY_EN)]})

    assert as_json.status_code == 415 and as_json.json()["error"]["code"] == "unsupported_media_type"
    assert unknown.status_code == 404 and malformed.status_code == 404 and "error" in malformed.json()
    assert anonymous.status_code in (401, 403) and "error" in anonymous.json()
    assert not IngestJob.objects.exists()


@pytest.mark.parametrize(
    "content_type",
    [None, "application/json", "application/octet-stream", "multipart/form-data; boundary=b"],
    ids=["no-type", "json", "octet-stream", "multipart"],
)
def test_an_empty_body_is_refused_in_the_error_shape(
    client: Client, auth: dict[str, Any], content_type: str | None
) -> None:
    # The test client leaves out both headers when the body is empty; a real client sends them.
    headers: dict[str, Any] = {"CONTENT_LENGTH": "0", **({"CONTENT_TYPE": content_type} if content_type else {})}

    response = client.generic("POST", "/api/v1/kb/documents", b"", **headers, **auth)

    assert response.status_code == 400
    assert response.json()["error"] == {"code": "invalid", "message": "This list may not be empty.", "field": "file"}
    assert not IngestJob.objects.exists()


def test_a_form_body_without_files_is_refused_in_the_error_shape(client: Client, auth: dict[str, Any]) -> None:
    response = client.generic(
        "POST", "/api/v1/kb/documents", b"kb=help", content_type="application/x-www-form-urlencoded", **auth
    )

    assert response.status_code == 400 and response.json()["error"]["field"] == "file"


def _post_raw(server: AsgiServer, key: str, *, body: Any, headers: dict[str, str], chunked: bool) -> tuple[int, Any]:
    """A request as http.client sends it, so the body can go chunked, with no Content-Length."""
    address = urllib.parse.urlsplit(server.url)
    connection = http.client.HTTPConnection(address.hostname or "", address.port, timeout=30)
    try:
        connection.request(
            "POST",
            "/api/v1/kb/documents",
            body=body,
            headers={"Authorization": f"Bearer {key}", **headers},
            encode_chunked=chunked,
        )
        response = connection.getresponse()
        return response.status, (response.getheader("Content-Type"), json.loads(response.read()))
    finally:
        connection.close()


@pytest.mark.parametrize("content_type", ["multipart/form-data; boundary=b0undary", None], ids=["multipart", "no-type"])
def test_a_chunked_upload_without_content_length_is_refused_by_the_real_server(
    asgi_server: AsgiServer, content_type: str | None
) -> None:
    # given: a well-formed multipart body with one file, sent in chunks with no Content-Length
    _, key = api_key_create(name="uploader", scopes=["kb"])
    body = (
        b'--b0undary\r\nContent-Disposition: form-data; name="file"; filename="w.md"\r\n\r\n'
        + WARRANTY_EN
        + b"\r\n--b0undary--\r\n"
    )
    headers = {"Content-Type": content_type} if content_type else {}

    status, (media_type, answer) = _post_raw(
        asgi_server, key, body=iter([body[:40], body[40:]]), headers=headers, chunked=True
    )

    assert status == 400 and media_type == "application/json"
    assert answer["error"]["field"] == "file" and "Content-Length" in answer["error"]["message"]
    assert not IngestJob.objects.exists()


def _long_guide(sections: int) -> bytes:
    return "\n".join(
        f"# Topic {i}\n\nPolicy {i}: items of kind {i} can be returned within {i % 30 + 1} days of delivery, "
        f"and refunds for kind {i} reach the original payment method within {i % 9 + 1} working days.\n"
        for i in range(sections)
    ).encode()


def _worker_runs(job_id: str) -> bool:
    """The worker is still running the job's task (asked of the worker itself)."""
    active = celery_app.control.inspect(timeout=1).active() or {}
    return any(job_id in str(task.get("args")) for tasks in active.values() for task in tasks)


def test_a_running_job_is_cancelled_through_the_api_and_drops_the_file_in_progress(
    client: Client, auth: dict[str, Any]
) -> None:
    url = upload(client, auth, [("long_guide.md", _long_guide(1500)), ("later.md", WARRANTY_EN)]).json()["url"]
    deadline = time.monotonic() + 60
    while client.get(url, **auth).json()["current_file"] != "long_guide.md":
        assert time.monotonic() < deadline, "the job never started the file"
        time.sleep(0.05)
    time.sleep(1)  # well into the file: reading, checking or embedding it

    cancelled = client.post(f"{url}/cancel", **auth)
    while _worker_runs(url.rsplit("/", 1)[-1]):  # it notices between two batches of whatever it was doing
        assert time.monotonic() < deadline, "the worker never stopped the cancelled job"
        time.sleep(0.05)
    job = client.get(url, **auth).json()
    again = client.post(f"{url}/cancel", **auth)

    assert cancelled.status_code == 200 and cancelled.json()["status"] == "cancelled"
    assert job["status"] == "cancelled" and job["finished_at"]
    assert [(f["outcome"], f["error"]) for f in job["files"]] == [("skipped", "the job was cancelled")] * 2
    assert not Document.objects.exists()  # nothing of the file being embedded was written
    assert again.status_code == 409 and again.json()["error"]["code"] == "conflict"


def test_an_upload_job_is_queued_for_the_ingest_worker(client: Client, auth: dict[str, Any], settings: Any) -> None:
    parked = ParkedQueue(f"ingest-test-parked-{uuid.uuid4().hex[:8]}")
    settings.CELERY_INGEST_QUEUE = parked.name
    try:
        job_id = upload(client, auth, [("w.md", WARRANTY_EN)]).json()["job_id"]

        assert parked.sent() == [("knowledge.tasks.ingest_job_run_task", (job_id,))]
    finally:
        parked.delete()


def test_each_worker_consumes_its_own_queue(celery_worker: subprocess.Popen[bytes]) -> None:
    queues = celery_app.control.inspect(timeout=2, limit=2).active_queues() or {}

    consumed = {node.split("@")[0]: sorted(queue["name"] for queue in found) for node, found in queues.items()}
    assert consumed == {"engine": ["cs-test"], "ingest": ["ingest-test"]}


def test_the_upload_worker_yields_the_cpu_to_the_chat(
    celery_worker: subprocess.Popen[bytes], ingest_worker: subprocess.Popen[bytes], settings: Any
) -> None:
    def niceness(worker: subprocess.Popen[bytes]) -> set[int]:
        process = psutil.Process(worker.pid)
        return {p.nice() for p in [process, *process.children(recursive=True)]}

    assert niceness(ingest_worker) == {settings.INGEST_WORKER_NICE} and settings.INGEST_WORKER_NICE > 0
    assert niceness(celery_worker) == {0}


SLOW_PDF = pdf_drawing(pages=40, drawn_bytes=900_000)  # passes every check; pypdf would parse it for over a minute


@pytest.mark.usefixtures("exemplars")
def test_a_chat_is_answered_while_uploads_keep_the_ingest_worker_busy(
    client: Client, auth: dict[str, Any], ingest_worker: subprocess.Popen[bytes]
) -> None:
    # given: four uploads that each take over a minute to read (four such held every worker, and a
    # shopper's reply came only once they were killed), the first one being read
    urls = [upload(client, auth, [(f"slow_{i}.pdf", SLOW_PDF)]).json()["url"] for i in range(4)]
    deadline = time.monotonic() + 30
    while not _reader_processes(ingest_worker):
        assert time.monotonic() < deadline, "no process started reading the files"
        time.sleep(0.05)
    conversation = client.post(
        "/api/v1/conversations",
        json.dumps({"customer": {"external_id": "shopper_busy_ingest"}, "locale": "en"}),
        content_type="application/json",
        **auth,
    ).json()

    try:
        # when: a shopper writes
        started = time.monotonic()
        response = client.post(
            f"/api/v1/conversations/{conversation['id']}/messages",
            json.dumps({"text": "Hello!"}),
            content_type="application/json",
            **auth,
        )
        seconds = time.monotonic() - started

        # then: the reply comes at once, while the uploads wait their turn behind the one being read
        assert response.status_code == 200 and response.json()["reply"]["text"]
        assert seconds < 15
        statuses = [client.get(url, **auth).json()["status"] for url in urls]
        assert statuses == ["running", "queued", "queued", "queued"]
    finally:
        for url in urls:
            client.post(f"{url}/cancel", **auth)
    while _reader_processes(ingest_worker):
        assert time.monotonic() - started < 30, "the cancelled upload is still being read"
        time.sleep(0.05)
    _ingest_tasks_finished()


def _ingest_tasks_finished(timeout: float = 60) -> None:
    """Every upload task consumed and ended. The cancelled jobs' tasks still queued run after a test that ends
    first (each returns at once), and their reads deadlocked with the next test's flush of the database."""
    deadline = time.monotonic() + timeout
    while True:
        with celery_app.connection_for_write() as connection:
            queued = connection.default_channel.queue_declare(settings.CELERY_INGEST_QUEUE).message_count
        inspector = celery_app.control.inspect(timeout=0.5)
        taken = [*(inspector.active() or {}).values(), *(inspector.reserved() or {}).values()]
        if not queued and not any(task["name"] == ingest_job_run_task.name for tasks in taken for task in tasks):
            return
        assert time.monotonic() < deadline, "the ingest worker still has upload tasks"
        time.sleep(0.2)


def _reader_processes(worker: subprocess.Popen[bytes]) -> list[psutil.Process]:
    """The child processes reading a file (knowledge.extract) under a worker."""
    return [process for process in psutil.Process(worker.pid).children(recursive=True) if reads_a_file(process)]


def test_cancelling_a_job_kills_the_process_reading_its_file(
    client: Client, auth: dict[str, Any], ingest_worker: subprocess.Popen[bytes]
) -> None:
    # given: a PDF that passes every check and would take pypdf over a minute to parse, being read
    url = upload(client, auth, [("slow.pdf", SLOW_PDF)]).json()["url"]
    deadline = time.monotonic() + 30
    while not (readers := _reader_processes(ingest_worker)):
        assert time.monotonic() < deadline, "no process started reading the file"
        time.sleep(0.05)

    # when
    cancelled = client.post(f"{url}/cancel", **auth)
    started = time.monotonic()
    while readers[0].is_running() and readers[0].status() != psutil.STATUS_ZOMBIE:
        assert time.monotonic() - started < 3, "the reading process outlived the cancel by 3 s"
        time.sleep(0.05)

    # then
    assert cancelled.status_code == 200
    while _worker_runs(url.rsplit("/", 1)[-1]):
        assert time.monotonic() - started < 10, "the worker never let go of the cancelled job"
        time.sleep(0.05)
    job = client.get(url, **auth).json()
    assert job["status"] == "cancelled" and job["files"][0]["outcome"] == "skipped"
    assert not _reader_processes(ingest_worker)


def test_cancelling_an_unknown_job_is_404(client: Client, auth: dict[str, Any]) -> None:
    assert client.post(f"/api/v1/kb/jobs/{uuid.uuid4()}/cancel", **auth).status_code == 404
    assert client.post("/api/v1/kb/jobs/not-a-job/cancel", **auth).json()["error"]["code"] == "not_found"
