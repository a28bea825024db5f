"""The outbox: an email backend that stores mail in the database instead of sending it.

It is the default until a mail server is configured (EMAIL_HOST), so a store runs offline and the
verification codes the assistant sends are readable in the admin (Conversations › Outbox emails). With
EMAIL_HOST set, Django's SMTP backend sends them.
"""

from __future__ import annotations

from collections.abc import Sequence

from django.core.mail.backends.base import BaseEmailBackend
from django.core.mail.message import EmailMessage


class OutboxBackend(BaseEmailBackend):
    def send_messages(self, email_messages: Sequence[EmailMessage]) -> int:
        from conversations.models import OutboxEmail

        OutboxEmail.objects.bulk_create(
            OutboxEmail(
                sender=message.from_email or "",
                recipients=", ".join(message.recipients()),
                subject=str(message.subject),
                body=str(message.body),
            )
            for message in email_messages
        )
        return len(email_messages)
