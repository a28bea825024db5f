import pytest
from django.core.management import call_command
from django.test import Client

pytestmark = pytest.mark.django_db


def test_storefront_lists_the_demo_catalogue_in_english(client: Client) -> None:
    call_command("seed_demo", verbosity=0)

    page = client.get("/?lang=en").content.decode()

    assert "Find X9" in page and "from ¥3999" in page and "National subsidy −¥500" in page


def test_storefront_lists_the_demo_catalogue_in_chinese(client: Client) -> None:
    call_command("seed_demo", verbosity=0)

    page = client.get("/?lang=zh").content.decode()

    assert "演示手机商城" in page and "¥3999 起" in page and "国补立减 ¥500" in page and "Enco X3 无线耳机" in page


def test_storefront_follows_the_browser_language(client: Client) -> None:
    call_command("seed_demo", verbosity=0)

    assert "演示手机商城" in client.get("/", HTTP_ACCEPT_LANGUAGE="zh-CN,zh;q=0.9").content.decode()
