import pytest
from django.core.management import call_command
from django.test import Client

from conversations.models import Customer
from conversations.services import conversation_start
from tests.agents.engine import run_turn

pytestmark = pytest.mark.django_db


def test_storefront_lists_the_demo_catalogue_in_english(client: Client) -> None:
    call_command("seed_demo", verbosity=0)

    page = client.get("/?lang=en").content.decode()

    assert "Find X9" in page and "from ¥3,999" in page and "National subsidy −¥500" in page
    assert ">Phone<" in page and ">Earbuds<" in page and ">Tablet<" in page


def test_storefront_lists_the_demo_catalogue_in_chinese(client: Client) -> None:
    call_command("seed_demo", verbosity=0)

    page = client.get("/?lang=zh").content.decode()

    assert "演示手机商城" in page and "¥3,999 起" in page and "国补立减 ¥500" in page and "Enco X3 无线耳机" in page
    assert ">手机<" in page and ">耳机<" in page and ">平板<" in page


def test_storefront_follows_the_browser_language(client: Client) -> None:
    call_command("seed_demo", verbosity=0)

    assert "演示手机商城" in client.get("/", HTTP_ACCEPT_LANGUAGE="zh-CN,zh;q=0.9").content.decode()


@pytest.mark.usefixtures("exemplars", "parked_queue")
@pytest.mark.parametrize(
    ("lang", "question", "on_page"),
    [
        ("en", "How much is the Find X8 after the national subsidy?", "National subsidy −¥449.85"),
        ("zh", "Find X8 国补后多少钱", "国补立减 ¥449.85"),
    ],
)
def test_the_subsidy_on_the_page_is_the_figure_the_chat_gives(
    client: Client, lang: str, question: str, on_page: str
) -> None:
    """15 % of ¥2,999 is ¥449.85: computed in one place (SubsidyRule.amount_for) and written one way (money)."""
    call_command("seed_demo", verbosity=0)
    chat = conversation_start(customer=Customer.objects.create(external_id=f"subsidy_{lang}"))

    page = client.get(f"/?lang={lang}").content.decode()
    reply = run_turn(chat, question).reply["text"]

    assert on_page in page and "¥450" not in page
    assert "¥449.85" in reply and "¥2,549.15" in reply
