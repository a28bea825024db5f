"""POST /widget/session answers with the chat's resume token (and a signed-in shopper's name): no cache, shared
or the browser's, may keep that answer."""

from __future__ import annotations

import pytest
from django.test import Client

from conversations.widget import identity_token_issue

pytestmark = pytest.mark.django_db


@pytest.mark.parametrize("signed_in", [True, False])
def test_the_session_answer_with_its_token_is_private_and_not_stored(client: Client, signed_in: bool) -> None:
    body = {"identity_token": identity_token_issue("shop-42", name="Ada")} if signed_in else {}

    response = client.post("/widget/session", body, content_type="application/json")

    assert response.status_code == 200 and response.json()["token"]
    directives = {part.strip() for part in response["Cache-Control"].split(",")}
    assert {"private", "no-store"} <= directives
