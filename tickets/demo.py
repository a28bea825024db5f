"""The demo staff login and the canned replies staff start from (zh and en)."""

from __future__ import annotations

from django.conf import settings
from django.contrib.auth import get_user_model
from django.contrib.auth.models import AbstractUser
from django.db import transaction

from tickets.models import CannedResponse
from tickets.staff import support_group_ensure

CANNED_RESPONSES = [
    (
        "greeting",
        "en",
        "Greeting",
        "Hi, this is {agent} from the support team. I have read your conversation so far - let me take it from here.",
    ),
    ("greeting", "zh", "问候", "您好，我是客服{agent}，已经看过您之前的对话，接下来由我为您处理。"),
    (
        "order-number",
        "en",
        "Ask for the order number",
        "Could you send me the order number? You can find it in the confirmation email.",
    ),
    ("order-number", "zh", "询问订单号", "麻烦您提供一下订单号，可以在下单确认邮件或“我的订单”中找到。"),
    (
        "return-policy",
        "en",
        "Return policy",
        "Delivered items can be returned within 7 days of delivery for any reason, in their original condition.",
    ),
    ("return-policy", "zh", "退货政策", "商品签收后 7 天内支持无理由退货，请保持商品及包装完好。"),
    ("apology", "en", "Apology", "I am sorry about the trouble this has caused. I will make sure it is sorted out."),
    ("apology", "zh", "致歉", "给您带来不便，非常抱歉，我会尽快帮您处理好。"),
    ("closing", "en", "Closing", "Is there anything else I can help you with today?"),
    ("closing", "zh", "结束语", "请问还有其他可以帮您的吗？"),
]


def demo_staff_ensure() -> AbstractUser:
    """Create the demo staff user in the support group, with the documented password, once."""
    user_model = get_user_model()
    with transaction.atomic():
        group = support_group_ensure()
        user, created = user_model.objects.get_or_create(
            username=settings.DEMO_STAFF_USERNAME,
            defaults={"first_name": "Demo", "last_name": "Staff", "is_staff": True},
        )
        if created:
            user.set_password(settings.DEMO_STAFF_PASSWORD)
            user.save(update_fields=["password"])
            user.groups.add(group)
    return user


def demo_staff_retire() -> bool:
    """Outside demo mode, a demo staff login left in the database must not open with the password
    the README prints: make it unusable (a superuser can set a new one). True when it was open."""
    user = get_user_model().objects.filter(username=settings.DEMO_STAFF_USERNAME).first()
    if user is None or not user.check_password(settings.DEMO_STAFF_PASSWORD):
        return False
    user.set_unusable_password()
    user.save(update_fields=["password"])
    return True


def canned_responses_seed() -> None:
    """Create the demo canned responses that are missing; edited ones are left alone."""
    for shortcut, language, title, text in CANNED_RESPONSES:
        CannedResponse.objects.get_or_create(
            shortcut=shortcut, language=language, defaults={"title": title, "text": text}
        )
