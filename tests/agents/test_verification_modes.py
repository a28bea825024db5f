"""CHAT_VERIFICATION: an emailed one-time code (the default) or a signed-in identity only; knowing a
customer's email is never enough to act on their orders. In zh and en."""

from __future__ import annotations

import re
from datetime import timedelta

import pytest
from django.core import mail
from django.core.management import call_command
from django.test import override_settings
from django.utils import timezone

from agents.models import VerificationCode
from agents.verification import (
    ACCOUNT_CODES_PER_HOUR,
    CLIENT_CODES_PER_ACCOUNT_HOUR,
    IDENTITY_GUESSES,
    IDENTITY_LOCKOUT,
)
from conversations.models import Conversation, Customer, OutboxEmail
from conversations.services import conversation_start
from stores.builtin.models import Order
from tests.agents.engine import run_turn

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("exemplars", "parked_queue")]


@pytest.fixture
def guest() -> Conversation:
    call_command("seed_demo", verbosity=0)
    return conversation_start(customer=Customer.objects.create(external_id="guest_codes"))


def _in(conversation: Conversation, language: str) -> Conversation:
    Conversation.objects.filter(pk=conversation.pk).update(language=language)
    conversation.refresh_from_db()
    return conversation


def _awaiting(turn: object) -> str | None:
    awaiting = turn.reply.get("awaiting")  # type: ignore[attr-defined]
    return awaiting["slot"] if awaiting else None


def _code_sent_to(address: str) -> str:
    """The last code emailed to `address` (pytest-django keeps sent mail in django.core.mail.outbox)."""
    sent = [message for message in mail.outbox if address in message.to]
    assert sent, "no code was emailed"
    code = re.search(r"\b\d{6}\b", str(sent[-1].body))
    assert code, "the email holds no code"
    return code[0]


STEPS = {
    "en": ("I want to cancel order #D1001", "li.wei@example.com", "no longer needed", "yes"),
    "zh": ("我要取消订单 #D1001", "邮箱是 li.wei@example.com", "不需要了", "确认"),
}


@override_settings(CHAT_VERIFICATION="code")
@pytest.mark.parametrize("language", ["en", "zh"])
def test_an_emailed_code_proves_the_account_and_the_email_alone_does_not(guest: Conversation, language: str) -> None:
    chat = _in(guest, language)
    request, email, reason, yes = STEPS[language]

    asked = run_turn(chat, request)
    named = run_turn(chat, email)
    # Knowing the email is not enough: nothing private is shown and nothing can be confirmed.
    pushed = run_turn(chat, reason)

    assert _awaiting(asked) == "email" and ("6-digit code" in asked.reply["text"] or "验证码" in asked.reply["text"])
    assert _awaiting(named) == "code" and "li.wei" not in named.reply["text"] and "l•••" not in named.reply["text"]
    assert _awaiting(pushed) == "code"
    chat.refresh_from_db()
    assert chat.verified_customer_id is None
    assert VerificationCode.objects.get(conversation=chat).code_hash not in _code_sent_to("li.wei@example.com")

    proven = run_turn(chat, _code_sent_to("li.wei@example.com"))

    chat.refresh_from_db()
    assert chat.verified_customer.external_id == "demo_li_wei"
    assert _awaiting(proven) in ("reason", "confirm")
    if _awaiting(proven) == "reason":
        run_turn(chat, reason)
    run_turn(chat, yes)
    assert Order.objects.get(external_id="#D1001").status == "cancelled"


@override_settings(CHAT_VERIFICATION="code")
def test_a_wrong_code_counts_and_three_wrong_proofs_hand_over(guest: Conversation) -> None:
    run_turn(guest, "I want to cancel order #D1001")
    run_turn(guest, "li.wei@example.com")
    right = _code_sent_to("li.wei@example.com")
    wrong = f"{(int(right) + 1) % 10**6:06d}"

    first = run_turn(guest, wrong)
    second = run_turn(guest, wrong)
    third = run_turn(guest, wrong)

    assert _awaiting(first) == "code" and "tries left" in first.reply["text"]
    assert _awaiting(second) == "code"
    assert third.status == "escalated" or "colleague" in third.reply["text"]
    guest.refresh_from_db()
    assert guest.verified_customer_id is None
    assert Order.objects.get(external_id="#D1001").status == "pending"


@override_settings(CHAT_VERIFICATION="code")
@pytest.mark.parametrize(("language", "expired"), [("en", "expired"), ("zh", "已过期")])
def test_an_expired_code_is_replaced_by_a_new_one(guest: Conversation, language: str, expired: str) -> None:
    chat = _in(guest, language)
    run_turn(chat, STEPS[language][0])
    run_turn(chat, STEPS[language][1])
    old = _code_sent_to("li.wei@example.com")
    VerificationCode.objects.update(expires_at=timezone.now() - timedelta(seconds=1))

    late = run_turn(chat, old)

    assert _awaiting(late) == "code" and expired in late.reply["text"]
    assert len(mail.outbox) == 2 and VerificationCode.objects.filter(used_at__isnull=True).count() == 1
    chat.refresh_from_db()
    assert chat.verified_customer_id is None


@override_settings(CHAT_VERIFICATION="code")
@pytest.mark.parametrize(
    ("language", "question", "email"),
    [("en", "Where is my order #D1002?", "li.wei@example.com"), ("zh", "我的订单 #D1002 到哪了", "li.wei@example.com")],
)
def test_an_order_question_is_answered_once_the_emailed_code_is_typed(
    guest: Conversation, language: str, question: str, email: str
) -> None:
    chat = _in(guest, language)
    run_turn(chat, question)
    sent = run_turn(chat, email)
    reminded = run_turn(chat, "ok" if language == "en" else "好的")  # no code in it: the same code is awaited
    assert _awaiting(sent) == _awaiting(reminded) == "code"

    answered = run_turn(chat, _code_sent_to(email))

    assert "SF1234567890" in answered.reply["text"] and _awaiting(answered) is None  # the order's tracking


@override_settings(CHAT_VERIFICATION="signed")
@pytest.mark.parametrize(("language", "sign_in"), [("en", "signed in"), ("zh", "登录")])
def test_with_signed_only_nothing_said_in_chat_proves_an_account(
    guest: Conversation, language: str, sign_in: str
) -> None:
    chat = _in(guest, language)
    run_turn(chat, STEPS[language][0])

    told = run_turn(chat, STEPS[language][1])

    assert sign_in in told.reply["text"]
    chat.refresh_from_db()
    assert chat.verified_customer_id is None and not mail.outbox


@override_settings(CHAT_VERIFICATION="signed")
def test_with_signed_only_a_signed_in_customer_is_served(guest: Conversation) -> None:
    li = Customer.objects.get(external_id="demo_li_wei")
    Customer.objects.filter(pk=li.pk).update(verified=True)
    chat = conversation_start(customer=li)

    turn = run_turn(chat, "Where is my order #D1002?")

    assert "SF1234567890" in turn.reply["text"] and _awaiting(turn) is None


@override_settings(EMAIL_BACKEND="conversations.mail.OutboxBackend")
def test_without_a_mail_server_mail_goes_to_the_outbox_in_the_admin(admin_client: object) -> None:
    mail.send_mail("Your verification code: 123456", "Your code is 123456.", "shop@example.com", ["a@example.com"])

    stored = OutboxEmail.objects.get()
    page = admin_client.get(f"/admin/conversations/outboxemail/{stored.pk}/change/")  # type: ignore[attr-defined]

    assert (stored.recipients, stored.subject) == ("a@example.com", "Your verification code: 123456")
    assert page.status_code == 200 and "Your code is 123456." in page.content.decode()


@override_settings(CHAT_VERIFICATION="code")
def test_a_code_stops_working_after_five_wrong_tries_whatever_the_workflow(guest: Conversation) -> None:
    from agents.verification import CODE_TRIES, ProofStatus, chat_proof

    named = chat_proof(guest, {"email": "li.wei@example.com"}, "li.wei@example.com")
    right = _code_sent_to("li.wei@example.com")
    wrong = f"{(int(right) + 1) % 10**6:06d}"
    tries = [chat_proof(guest, {}, wrong, awaiting="code").status for _ in range(CODE_TRIES)]

    late = chat_proof(guest, {}, right, awaiting="code")

    assert named.status == ProofStatus.CODE_SENT
    assert tries == [ProofStatus.CODE_WRONG] * (CODE_TRIES - 1) + [ProofStatus.CODE_SPENT]
    assert late.status == ProofStatus.NOTHING and late.customer is None


def _chat_from(address: str, name: str, language: str = "en") -> Conversation:
    """A new anonymous chat opened from `address` (as the widget's session endpoint opens one)."""
    customer = Customer.objects.create(external_id=name)
    return conversation_start(customer=customer, language=language, client_key=f"address:{address}")


def _codes_to(address: str) -> int:
    return len([m for m in mail.outbox if address in m.to])


@override_settings(CHAT_VERIFICATION="code")
def test_new_chats_from_one_address_do_not_buy_more_codes_for_one_account(guest: Conversation) -> None:
    """Twelve anonymous chats from one address naming one email: that address gets its own few codes, and the
    owner, asking from elsewhere, still gets one."""
    for n in range(12):
        chat = _chat_from("203.0.113.66", f"prober_{n}")
        run_turn(chat, "I want to cancel order #D1001")
        run_turn(chat, "li.wei@example.com")
    sent_to_strangers = _codes_to("li.wei@example.com")

    owner = _chat_from("198.51.100.20", "li_at_home")
    run_turn(owner, "I want to cancel order #D1001")
    run_turn(owner, "li.wei@example.com")
    run_turn(owner, _code_sent_to("li.wei@example.com"))

    assert sent_to_strangers == CLIENT_CODES_PER_ACCOUNT_HOUR
    owner.refresh_from_db()
    assert owner.verified_customer.external_id == "demo_li_wei"
    assert Order.objects.get(external_id="#D1001").status == "pending"


@override_settings(CHAT_VERIFICATION="code")
def test_strangers_everywhere_cannot_spend_the_owners_codes(guest: Conversation) -> None:
    # given: the owner proved the account once from home
    home = _chat_from("198.51.100.20", "li_first_visit")
    run_turn(home, "Where is my order #D1002?")
    run_turn(home, "li.wei@example.com")
    run_turn(home, _code_sent_to("li.wei@example.com"))
    # when: strangers from twenty addresses name the account
    for n in range(20):
        stranger = _chat_from(f"203.0.113.{n + 1}", f"stranger_{n}")
        run_turn(stranger, "Where is my order #D1002?")
        run_turn(stranger, "li.wei@example.com")
    sent_before_owner = _codes_to("li.wei@example.com")
    # then: the account's hourly cap stopped them, and the owner's client still gets a code
    again = _chat_from("198.51.100.20", "li_second_visit")
    run_turn(again, "Where is my order #D1002?")
    run_turn(again, "li.wei@example.com")

    assert sent_before_owner == 1 + ACCOUNT_CODES_PER_HOUR
    assert _codes_to("li.wei@example.com") == sent_before_owner + 1


REPLY_PAIRS = {
    "en": ("Where is my order #D1002?", "li.wei@example.com", "nobody.here@example.com"),
    "zh": ("我的订单 #D1002 到哪了", "邮箱是 li.wei@example.com", "邮箱是 nobody.here@example.com"),
}


@override_settings(CHAT_VERIFICATION="code")
@pytest.mark.parametrize("language", ["en", "zh"])
def test_details_that_match_an_account_and_details_that_do_not_get_the_same_reply(
    guest: Conversation, language: str
) -> None:
    question, known, unknown = REPLY_PAIRS[language]
    replies = []
    for n, email in enumerate((known, unknown)):
        chat = _chat_from(f"203.0.113.{n + 1}", f"asker_{language}_{n}", language)
        run_turn(chat, question)
        told = run_turn(chat, email)
        wrong = run_turn(chat, "000000")
        replies.append((told.reply["text"], _awaiting(told), wrong.reply["text"], _awaiting(wrong)))

    assert replies[0] == replies[1]
    assert replies[0][1] == replies[0][3] == "code"
    assert ("If that matches an account" if language == "en" else "如果这些信息与某个账户相符") in replies[0][0]
    assert _codes_to("li.wei@example.com") == 1 and _codes_to("nobody.here@example.com") == 0


@override_settings(CHAT_VERIFICATION="code")
@pytest.mark.parametrize("digits", ["8000", "1234"])
def test_an_order_id_with_phone_digits_never_confirms_the_digits(guest: Conversation, digits: str) -> None:
    """Li's phone ends in 8000: the right and a wrong ending get the same words, and only the right one mails
    the account's owner (who alone can read the code)."""
    chat = _chat_from("203.0.113.9", f"digits_{digits}")
    run_turn(chat, "Where is my order #D1002?")

    told = run_turn(chat, f"order #D1001, phone ends in {digits}")

    assert "If that matches an account" in told.reply["text"] and _awaiting(told) == "code"
    assert "l•••" not in told.reply["text"] and "li.wei" not in told.reply["text"]
    assert _codes_to("li.wei@example.com") == (1 if digits == "8000" else 0)
    chat.refresh_from_db()
    assert chat.verified_customer_id is None


GUESS = {"en": "#D1001, phone ends in {}", "zh": "订单 #D1001，手机尾号 {}"}


@override_settings(CHAT_VERIFICATION="code")
@pytest.mark.parametrize("language", ["en", "zh"])
def test_guesses_are_counted_per_address_across_chats_with_a_growing_lockout(
    guest: Conversation, language: str
) -> None:
    from django.core.cache import cache
    from django_redis import get_redis_connection

    # given: one address guessing phone endings for one order, a fresh chat every two guesses
    question = REPLY_PAIRS[language][0]
    told = []
    for n in range(IDENTITY_GUESSES + 2):
        chat = _chat_from("203.0.113.77", f"guesser_{language}_{n}", language)
        run_turn(chat, question)
        told.append(run_turn(chat, GUESS[language].format(1000 + n)))
    lockout = cache.get("identity-lockout:address:203.0.113.77")
    # elsewhere, nothing is locked
    other = _chat_from("198.51.100.30", f"elsewhere_{language}", language)
    run_turn(other, question)
    elsewhere = run_turn(other, "li.wei@example.com")

    locked = "too many attempts" if language == "en" else "尝试次数过多"
    assert all(locked not in turn.reply["text"] for turn in told[:IDENTITY_GUESSES])
    assert all(locked in turn.reply["text"] for turn in told[IDENTITY_GUESSES:])
    assert lockout is not None and locked not in elsewhere.reply["text"] and _awaiting(elsewhere) == "code"

    # when the lockout ends and the address goes on guessing, the next lockout is twice as long
    cache.delete("identity-lockout:address:203.0.113.77")
    get_redis_connection("default").delete(cache.make_key("rate:identity:address:203.0.113.77"))
    for n in range(IDENTITY_GUESSES + 1):
        chat = _chat_from("203.0.113.77", f"guesser_again_{language}_{n}", language)
        run_turn(chat, question)
        run_turn(chat, GUESS[language].format(2000 + n))
    second = cache.get("identity-lockout:address:203.0.113.77")
    now = timezone.now().timestamp()
    assert second - now > 1.9 * IDENTITY_LOCKOUT.total_seconds()


def test_a_store_that_sets_nothing_asks_for_an_emailed_code_and_keeps_mail_in_the_outbox() -> None:
    import json
    import subprocess
    import sys

    from django.conf import settings

    from tests.conftest import BASE_DIR, subprocess_env

    script = (
        "import json, django; django.setup(); from django.conf import settings as s; "
        "print(json.dumps([s.CHAT_VERIFICATION, s.EMAIL_BACKEND]))"
    )

    def settings_with(**env: str) -> list[str]:
        environment = subprocess_env(
            DJANGO_SETTINGS_MODULE="cs_project.settings.base",
            DATABASE_URL=settings.DATABASE_URL,
            REDIS_URL=settings.REDIS_URL,
            **env,
        )
        for name in ("CHAT_VERIFICATION", "EMAIL_HOST"):
            if name not in env:
                environment.pop(name, None)
        done = subprocess.run(
            [sys.executable, "-c", script], cwd=BASE_DIR, env=environment, capture_output=True, text=True
        )
        assert done.returncode == 0, done.stderr
        return list(json.loads(done.stdout.strip().splitlines()[-1]))

    assert settings_with() == ["code", "conversations.mail.OutboxBackend"]
    assert settings_with(EMAIL_HOST="smtp.example.com") == ["code", "django.core.mail.backends.smtp.EmailBackend"]
    assert settings_with(CHAT_VERIFICATION="signed")[0] == "signed"
