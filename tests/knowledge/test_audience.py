"""Knowledge bases have an audience: public ones are quoted to shoppers, internal ones (a store's own procedures)
are searched by staff only, in the console and the API, and never reach the chat or the public source pages."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from django.contrib.auth.models import Permission
from django.core.files.uploadedfile import SimpleUploadedFile
from django.core.management import call_command
from django.test import Client

from conversations.api_keys import api_key_create
from conversations.models import Customer
from conversations.services import conversation_start
from knowledge.models import Audience, Chunk, KnowledgeBase
from knowledge.readers import IngestError
from knowledge.services import ingest_job_create, knowledge_base_audience_set
from tests.agents.engine import run_turn

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("exemplars", "parked_queue")]

# A store's internal procedure, worded like the shopper's question, so that only the audience keeps it out.
PROCEDURES = {
    "en": (
        "gift-card-locks.md",
        "# Gift card locks\n\n## Unlocking a locked gift card\nA gift card locks after three wrong PINs. It is unlocked"
        " in the fraud console after a 48-hour hold.\n",
        "How is a locked gift card unlocked after wrong PINs?",
        "fraud console",
    ),
    "zh": (
        "gift-card-locks-zh.md",
        "# 礼品卡冻结\n\n## 礼品卡解冻\n礼品卡连续三次输错密码会被冻结。冻结满 48 小时后在风控后台解冻。\n",
        "礼品卡输错密码被冻结后怎么解冻？",
        "风控后台",
    ),
}


@pytest.fixture
def procedures(tmp_path: Path) -> Path:
    call_command("seed_demo", verbosity=0)
    for name, text, _, _ in PROCEDURES.values():
        (tmp_path / name).write_text(text)
    return tmp_path


@pytest.mark.parametrize("language", ["en", "zh"])
@pytest.mark.parametrize("audience", ["public", "internal"])
def test_the_chat_quotes_a_public_procedure_and_never_an_internal_one(
    procedures: Path, language: str, audience: str, client: Client
) -> None:
    _, _, question, secret = PROCEDURES[language]
    call_command("ingest_kb", str(procedures), "--kb", "procedures", "--audience", audience, verbosity=0)
    internal = set(Chunk.objects.filter(document__knowledge_base__name="procedures").values_list("pk", flat=True))
    chat = conversation_start(customer=Customer.objects.create(external_id=f"guest-{language}-{audience}"))

    turn = run_turn(chat, question)

    cited = {source["chunk_id"] for source in turn.reply["sources"]}
    if audience == "public":  # the same question does reach the passage when the chat may quote it
        assert secret in turn.reply["text"] and cited & internal
    else:
        assert secret not in turn.reply["text"] and not cited & internal
        assert all(client.get(f"/kb/sources/{pk}").status_code == 404 for pk in internal)


def test_staff_find_internal_passages_in_the_console_marked_as_never_quoted(
    procedures: Path, django_user_model: Any
) -> None:
    call_command("ingest_kb", str(procedures), "--kb", "procedures", "--audience", "internal", verbosity=0)
    staff = django_user_model.objects.create_user(username="mei", password="pw", is_staff=True)
    staff.user_permissions.add(Permission.objects.get(codename="take_over_conversation"))
    client = Client()
    client.force_login(staff)

    english = client.get("/admin/console/", {"kq": "unlock a locked gift card"}).content.decode()
    chinese = client.get("/admin/console/", {"kq": "礼品卡解冻"}, HTTP_ACCEPT_LANGUAGE="zh-hans").content.decode()

    assert "fraud console" in english and 'data-audience="internal"' in english
    assert "internal: never quoted to customers" in english
    assert "风控后台" in chinese and "内部资料：不会引用给顾客" in chinese


def test_the_api_searches_every_audience_unless_told_which(procedures: Path, client: Client) -> None:
    call_command("ingest_kb", str(procedures), "--kb", "procedures", "--audience", "internal", verbosity=0)
    _, key = api_key_create(name="integrator")
    auth = f"Bearer {key}"
    query = "/api/v1/kb/search?q=unlock+a+locked+gift+card"

    every = client.get(query, HTTP_AUTHORIZATION=auth).json()["results"]
    public = client.get(f"{query}&audience=public", HTTP_AUTHORIZATION=auth).json()["results"]
    wrong = client.get(f"{query}&audience=secret", HTTP_AUTHORIZATION=auth)

    assert every[0]["audience"] == "internal" and "fraud console" in every[0]["text"]
    assert public and all(r["audience"] == "public" and "fraud console" not in r["text"] for r in public)
    assert wrong.status_code == 400 and wrong.json()["error"]["field"] == "audience"


def test_an_audience_is_kept_until_changed_and_a_wrong_one_is_refused(procedures: Path) -> None:
    call_command("ingest_kb", str(procedures), "--kb", "procedures", "--audience", "internal", verbosity=0)
    call_command("ingest_kb", str(procedures), "--kb", "procedures", verbosity=0)  # left out: kept
    assert KnowledgeBase.objects.get(name="procedures").audience == Audience.INTERNAL

    knowledge_base_audience_set(kb_name="procedures", audience="public")
    assert KnowledgeBase.objects.get(name="procedures").audience == Audience.PUBLIC

    with pytest.raises(IngestError, match="audience must be public or internal"):
        ingest_job_create(kb_name="fresh", files=[SimpleUploadedFile("a.md", b"# A\n\nText.")], audience="staff")
    assert not KnowledgeBase.objects.filter(name="fresh").exists()
