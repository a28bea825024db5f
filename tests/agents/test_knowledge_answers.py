"""Knowledge answers: extractive offline, grounded with an LLM (fake server), cited only from what was
retrieved; a miss is unresolved and becomes a knowledge gap that staff can answer in one step."""

from __future__ import annotations

from pathlib import Path

import pytest
from django.core.management import call_command

from agents.specialists.knowledge import grounded_citations
from conversations.models import Conversation, Customer
from conversations.services import conversation_start
from knowledge.gaps import knowledge_gaps
from knowledge.models import Chunk, MissedQuestion
from knowledge.selectors import chunk_search_hybrid
from knowledge.services import gap_answer, missed_question_record
from tests.agents.engine import run_turn
from tests.fake_openai import FakeOpenAI

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("exemplars", "parked_queue")]


@pytest.fixture
def visitor() -> Conversation:
    call_command("seed_demo", verbosity=0)
    return conversation_start(customer=Customer.objects.create(external_id="guest_kb"))


def _intent(fake: FakeOpenAI, name: str, text: str) -> None:
    fake.reply_json({"intents": [{"intent": name, "confidence": 0.95, "text": text}]})


def test_an_extractive_answer_keeps_the_sentences_that_answer_the_question(visitor: Conversation) -> None:
    turn = run_turn(visitor, "One earbud has no sound, how do I fix it?")

    text = turn.reply["text"].split("\n\n")[0]  # a fault may also start a repair request after it
    assert "hold the case button for 15 seconds" in text and text.endswith("[1]")
    assert "Bluetooth settings" not in text  # the pairing section is another passage
    assert (
        turn.reply["sources"][0]["title"]
        == "Product guides and troubleshooting › Enco X3 Earbuds: one side has no sound"
    )
    source = turn.reply["sources"][0]
    assert source["url"] == f"/kb/sources/{source['chunk_id']}"  # the citation links to the passage
    assert visitor.failed_attempts == 0


def test_a_chinese_question_is_answered_from_the_chinese_articles(visitor: Conversation) -> None:
    turn = run_turn(visitor, "耳机一边没有声音怎么办")

    assert "长按充电盒按键 15 秒" in turn.reply["text"] and "[1]" in turn.reply["text"]
    assert turn.reply["sources"][0]["title"].startswith("产品使用指南与故障排查")


def test_a_grounded_answer_keeps_only_citations_of_retrieved_passages(
    visitor: Conversation, llm_settings: FakeOpenAI
) -> None:
    _intent(llm_settings, "policy_inquiry", "How long is the warranty on earbuds?")
    llm_settings.reply("Earbuds have a 6-month warranty from delivery [2]. Drops are not covered [1][9].")

    turn = run_turn(visitor, "How long is the warranty on earbuds?")

    prompt = llm_settings.chat_requests[1]["body"]["messages"]
    passages = prompt[1]["content"]
    assert "[1] " in passages and "[5] " in passages and "[6] " not in passages
    assert "<message>\nHow long is the warranty on earbuds?\n</message>" in passages
    assert turn.reply["text"] == "Earbuds have a 6-month warranty from delivery [1]. Drops are not covered [2]."
    cited = [s["chunk_id"] for s in turn.reply["sources"]]
    assert len(cited) == 2 and set(cited) <= set(Chunk.objects.values_list("pk", flat=True))


def test_a_grounded_answer_citing_nothing_retrieved_falls_back_to_the_extract(
    visitor: Conversation, llm_settings: FakeOpenAI
) -> None:
    _intent(llm_settings, "policy_inquiry", "How long is the warranty on earbuds?")
    llm_settings.reply("Our warranty lasts ten years [7].")

    turn = run_turn(visitor, "How long is the warranty on earbuds?")

    assert "ten years" not in turn.reply["text"] and "6 months" in turn.reply["text"]
    assert turn.reply["text"].rstrip().endswith("[1]")


def test_the_model_saying_the_passages_do_not_answer_is_a_miss(visitor: Conversation, llm_settings: FakeOpenAI) -> None:
    _intent(llm_settings, "usage_tutorial", "How do I change the wallpaper?")
    llm_settings.reply("NO_ANSWER")

    run_turn(visitor, "How do I change the wallpaper?")

    assert visitor.failed_attempts == 1
    assert MissedQuestion.objects.get().question == "How do I change the wallpaper?"


@pytest.mark.parametrize(
    ("question", "language"), [("Do you offer gift wrapping?", "en"), ("你们提供礼品包装吗？", "zh")]
)
def test_with_a_model_the_ranking_stage_still_decides_a_miss_and_the_model_never_sees_unrelated_passages(
    visitor: Conversation, llm_settings: FakeOpenAI, question: str, language: str
) -> None:
    visitor.language = language
    visitor.save(update_fields=["language"])
    _intent(llm_settings, "policy_inquiry", question)
    llm_settings.reply("Gift wrapping is free for every order [1].")  # what a model could make of a loose passage

    turn = run_turn(visitor, question)

    prompts = [str(r["body"]["messages"]) for r in llm_settings.chat_requests]
    assert not any("<message>" in p and "[1] " in p for p in prompts[1:])  # no passages were offered
    assert "free for every order" not in turn.reply["text"] and not turn.reply["sources"]
    assert MissedQuestion.objects.get().question == question


def test_citation_filter_renumbers_by_first_use_and_drops_the_rest() -> None:
    assert grounded_citations("A [3]. B [1] and [3]. C [0][12].", passages=3) == ("A [1]. B [2] and [1]. C.", [2, 0])
    assert grounded_citations("Nothing cited.", passages=3) == ("Nothing cited.", [])


def test_missed_questions_group_by_meaning_and_one_faq_entry_answers_the_group(visitor: Conversation) -> None:
    asked = [
        "Do you ship to Canada?",
        "Can you deliver to Canada?",
        "Do you ship to Canada?",
        "Do you deliver to Canada?",
        "可以寄到加拿大吗",
        "How do I change the wallpaper?",
    ]
    for index, text in enumerate(asked):
        missed_question_record(question=text, language="zh" if "加拿大" in text else "en", reference=f"subtask:{index}")
    missed_question_record(question="Do you ship to Canada?", language="en", reference="subtask:0")  # a retry
    assert MissedQuestion.objects.count() == 6

    gaps = knowledge_gaps()

    canada = gaps[0]
    assert canada.count >= 4 and canada.question == "Do you ship to Canada?"
    assert "Can you deliver to Canada?" in canada.examples
    assert [g.examples for g in gaps if "How do I change the wallpaper?" in g.examples] == [
        ["How do I change the wallpaper?"]
    ]

    gap_answer(
        question=canada.question,
        answer="Yes, we ship to Canada with UPS in 5 to 8 days.",
        kb_name="demo",
        language="en",
        missed_ids=canada.missed_ids,
    )

    results, miss = chunk_search_hybrid(query="Can you deliver to Canada?", kb="demo")
    assert not miss and "UPS in 5 to 8 days" in results[0].text
    assert all("Do you ship to Canada?" not in g.examples for g in knowledge_gaps())
    assert "UPS in 5 to 8 days" in run_turn(visitor, "Do you ship to Canada?").reply["text"]


def test_an_offline_miss_is_unresolved_and_remembered_once(visitor: Conversation) -> None:
    turn = run_turn(visitor, "How do I set up the fingerprint sensor for bank apps?")

    assert visitor.failed_attempts == 1 or turn.status == "escalated"
    missed = MissedQuestion.objects.get()
    assert (
        missed.question.startswith("How do I set up the fingerprint sensor for bank apps") and missed.language == "en"
    )


def _ingest(folder: Path, articles: tuple[tuple[str, str], ...]) -> None:
    """Ingest (file name, text) articles into the "help" knowledge base, as an operator would."""
    from knowledge.services import file_ingest

    for name, body in articles:
        (folder / name).write_text(body)
        file_ingest(kb_name="help", path=folder / name, source=f"help/{name}")


TRADE_IN_EN = """# Trade-in programme

## How much we pay
We buy back your old phone for store credit. A Find X8 in good condition is worth ¥1,200 and a
cracked one ¥400. The credit arrives within 2 business days after our inspection.

## Shipping the old phone
Print the free shipping label from your account and drop the box at any post office.
"""
TRADE_IN_ZH = """# 以旧换新

## 回收价格
旧手机可以折算成商城余额。成色良好的 Find X8 折价 1200 元，屏幕碎裂的折价 400 元。验机后 2 个工作日内到账。

## 寄送旧手机
在账户中打印免费运单，把包裹交给任意邮局即可。
"""


@pytest.mark.parametrize(
    ("language", "question", "fact"),
    [
        ("en", "what would I get for my old Find X8 if the screen is smashed?", "¥400"),
        ("en", "how long until the credit shows up once you've checked the old phone?", "2 business days"),
        ("zh", "旧手机屏幕碎了还能换多少钱", "400 元"),
        ("zh", "旧手机寄过去多久能拿到钱？", "2 个工作日"),
    ],
)
def test_an_ingested_article_answers_questions_in_other_words_without_identity_checks(
    visitor: Conversation, tmp_path: Path, language: str, question: str, fact: str
) -> None:
    # given: an article the operator has just ingested, which the demo knowledge base does not hold
    _ingest(tmp_path, (("trade_in_en.md", TRADE_IN_EN), ("trade_in_zh.md", TRADE_IN_ZH)))

    # when
    turn = run_turn(visitor, question)

    # then: cited, stated, and no question about who the customer is
    assert fact in turn.reply["text"]
    assert any("Trade-in" in s["title"] or "以旧换新" in s["title"] for s in turn.reply["sources"])
    assert turn.reply["awaiting"] is None


PICKUP_EN = """# Store pickup

Store pickup lets you order online and collect the order at one of our partner stores. Pickup is free.

## When your order is ready

Most orders are ready the same day. We send a text message with a pickup code when the order is ready,
and the store cannot hand over an order before that.

## At the counter

Show the pickup code and a photo ID. A friend can pick up for you with the code and their own ID.

## If you do not come

We keep your order for 7 days after the code is sent. An order nobody picks up is cancelled and
refunded in full within 5 business days.
"""
PICKUP_ZH = """# 门店自提

下单时选择门店自提，到合作门店取货，自提免费。

## 备货完成

大多数订单当天备好。备好后我们会发送带取货码的短信，收到短信前门店无法交付订单。

## 到店取货

出示取货码和身份证件即可。亲友也可以凭取货码和本人证件代取。

## 没有按时取货

取货码发出后订单保留 7 天。逾期未取的订单会被取消并在 5 个工作日内全额退款。
"""


@pytest.mark.parametrize(
    ("language", "question", "fact"),
    [
        ("en", "What happens if I never go and pick it up?", "cancelled and refunded in full"),
        ("en", "I'm travelling this week, how long will the shop keep my order?", "7 days"),
        ("zh", "订单一直没去门店取会怎么样？", "取消并在 5 个工作日内全额退款"),
        ("zh", "我出差一周，我的订单门店能保留多久？", "保留 7 天"),
    ],
)
def test_a_policy_question_about_ones_own_order_is_answered_from_the_article(
    visitor: Conversation, tmp_path: Path, language: str, question: str, fact: str
) -> None:
    # given: an article about store pickup, just ingested
    _ingest(tmp_path, (("pickup_en.md", PICKUP_EN), ("pickup_zh.md", PICKUP_ZH)))

    # when
    turn = run_turn(visitor, question)

    # then: answered and cited, with no identity check although the customer says "my order"
    assert fact in turn.reply["text"], turn.reply["text"]
    assert turn.reply["sources"][0]["title"].endswith(("If you do not come", "没有按时取货"))
    assert not turn.reply.get("awaiting")


RENEWED_EN = """# Certified renewed phones

Renewed phones are customer returns, inspected and restored before they go on sale again.

## Condition grades
Grade A looks like new. Grade B has light marks on the frame.

## In the box
The phone comes in a plain box with a USB-C cable. A charger is not included.
"""
SUMMER_EN = """# Summer offer

## Free charger
Buy a phone between July and September and we add a free 45 W charger to the order.
"""
RENEWED_ZH = """# 官方翻新机

翻新机来自客户退货，经过检测和翻新后重新销售。

## 成色等级
A 级外观接近全新，B 级边框有轻微痕迹。

## 包装清单
手机装在简易包装盒中，附一根 USB-C 数据线，不附带充电器。
"""
SUMMER_ZH = """# 暑期活动

## 赠送充电器
7 月至 9 月购买手机，订单里会赠送一个 45 W 充电器。
"""


@pytest.mark.parametrize(
    ("language", "question", "fact", "title"),
    [
        ("en", "does a renewed phone come with a charger?", "A charger is not included", "Certified renewed phones"),
        ("zh", "翻新机送充电器吗", "不附带充电器", "官方翻新机"),
    ],
)
def test_the_article_a_question_is_about_answers_it_though_the_section_never_names_the_topic(
    visitor: Conversation, tmp_path: Path, language: str, question: str, fact: str, title: str
) -> None:
    # given: the section that answers never says "renewed", while another article's section is all about chargers
    _ingest(
        tmp_path,
        (
            ("renewed_en.md", RENEWED_EN),
            ("summer_en.md", SUMMER_EN),
            ("renewed_zh.md", RENEWED_ZH),
            ("summer_zh.md", SUMMER_ZH),
        ),
    )

    # when
    turn = run_turn(visitor, question)

    # then: the renewed article's box contents are quoted first
    assert fact in turn.reply["text"], turn.reply["text"]
    assert turn.reply["sources"][0]["title"].startswith(title)


ABROAD_EN = """<html><head><title>Delivery abroad | Help</title></head><body><nav>Home | Sign in</nav>
<h1>Delivery abroad</h1>
<h2>Rates</h2>
<p>Parcels abroad travel by air and leave the warehouse on the next working day.</p>
<table><tr><th>Region</th><th>Transit</th><th>Rate</th></tr>
<tr><td>Hong Kong and Macao</td><td>2-4 working days</td><td>¥45</td></tr>
<tr><td>Europe</td><td>6-10 working days</td><td>¥160</td></tr></table>
<h2>Import charges</h2>
<p>Our prices never include the import charges of the country the parcel goes to. For Europe we take the import
VAT at checkout, so the courier asks for nothing at the door. Everywhere else the person receiving the parcel pays
the charges to the courier on arrival. The courier sends a text message or an email before it delivers. Every
parcel is declared at the price that was really paid, and no parcel can be declared as a present or at a lower
value. When the charges are refused at the door, the parcel travels back to our warehouse. The order is then
refunded without the delivery rate and minus a handling charge of ¥180.</p>
<footer>© shop</footer></body></html>
"""
ABROAD_ZH = """# 海外配送

## 运费

海外包裹走空运，下一个工作日出库。

| 地区 | 时效 | 运费 |
|---|---|---|
| 香港和澳门 | 2-4 个工作日 | 45 元 |
| 欧洲 | 6-10 个工作日 | 160 元 |

## 进口税费

我们的售价从不包含目的地国家的进口税费。寄往欧洲的订单在结账时代收进口增值税，派送时无需再付。寄往其他地区的订单由收件人在包裹到达时向快递公司缴纳税费。
快递公司会在派送前发短信或邮件通知收件人。每个包裹都按实际支付金额申报，不能申报为礼物，也不能低报价值。
如果收件人拒付税费，包裹会退回我们的仓库。订单退款时扣除运费，另收 180 元手续费。
"""


@pytest.mark.parametrize(
    ("question", "fact"),
    [
        ("what does it cost to send a parcel to hong kong", "Rate: ¥45"),
        ("寄到香港运费多少钱", "运费：45 元"),
        ("What happens if I refuse to pay the import charges at the door?", "handling charge of ¥180"),
        ("如果拒付进口税费会怎么样", "另收 180 元手续费"),
    ],
    ids=["table-en", "table-zh", "across-a-cut-en", "across-a-cut-zh"],
)
def test_a_table_row_or_a_sentence_across_a_chunk_cut_is_quoted_with_what_it_means(
    visitor: Conversation, tmp_path: Path, question: str, fact: str
) -> None:
    # given: a help page whose rates are a table, and whose long section the chunker cuts in two
    _ingest(tmp_path, (("delivery_abroad_en.html", ABROAD_EN), ("delivery_abroad_zh.md", ABROAD_ZH)))
    sections = Chunk.objects.filter(heading__endswith="Import charges").values_list("text", flat=True)
    assert len(sections) == 2 and not any(text[0].islower() for text in sections)  # cut between sentences

    # when
    turn = run_turn(visitor, question)

    # then: the row says what its number is; the consequence is quoted after the condition that leads to it
    assert fact in turn.reply["text"], turn.reply["text"]
    assert turn.reply["sources"][0]["title"].startswith(("Delivery abroad", "海外配送"))
    assert turn.reply["awaiting"] is None


DELIVERY_BY_REGION_EN = """# Delivery times by region

## Standard delivery
Orders leave our warehouse the next working day, and the times below count from dispatch.

| Region | Standard delivery | Fee |
|---|---|---|
| London | 1 working day | £2.99 |
| England and Wales | 1–2 working days | £3.99 |
| Scotland (mainland, except the Highlands) | 2–3 working days | £3.99 |
| Scottish Highlands | 3–5 working days | £6.99 |
| Northern Ireland | 4–6 working days | £7.99 |
| Channel Islands | 5–7 working days | £9.99 |
"""
DELIVERY_BY_REGION_ZH = """# 各地区配送时效

## 普通快递
订单次日从仓库发出，下表时效从发货之日起计算。

| 地区 | 普通快递时效 | 运费 | 说明 |
|---|---|---|---|
| 广东、广西、海南 | 1–2 天 | 免运费 | 海南离岛地区另加 1 天 |
| 福建、江西、湖南 | 2 天 | ¥6 | 满 ¥99 免运费 |
| 江苏、浙江、上海 | 2–3 天 | ¥8 | 满 ¥99 免运费 |
| 山东、安徽、河南、湖北 | 2–3 天 | ¥8 | 满 ¥99 免运费 |
| 北京、天津、河北 | 2–4 天 | ¥10 | 满 ¥199 免运费 |
| 辽宁、吉林、黑龙江 | 3–4 天 | ¥12 | 满 ¥199 免运费 |
| 四川、重庆、云南、贵州 | 3–5 天 | ¥12 | 满 ¥199 免运费 |
| 内蒙古、宁夏、青海、甘肃 | 4–6 天 | ¥15 | 满 ¥299 免运费 |
| 新疆、西藏 | 7–12 天 | ¥25 | 大件商品另收附加费 |
"""


@pytest.mark.parametrize(
    ("question", "fact"),
    [
        ("how long does standard delivery take to Belfast?", "4–6 working days"),
        ("寄到乌鲁木齐普通快递要几天", "7–12 天"),
    ],
)
def test_a_city_is_answered_from_the_row_of_the_region_it_lies_in(
    visitor: Conversation, tmp_path: Path, question: str, fact: str
) -> None:
    # given: delivery times by region (knowledge.places knows Belfast is in Northern Ireland, 乌鲁木齐 in 新疆)
    _ingest(tmp_path, (("delivery_en.md", DELIVERY_BY_REGION_EN), ("delivery_zh.md", DELIVERY_BY_REGION_ZH)))

    turn = run_turn(visitor, question)

    assert fact in turn.reply["text"], turn.reply["text"]
    assert turn.reply["sources"][0]["title"].startswith(("Delivery times by region", "各地区配送时效"))


@pytest.mark.parametrize(
    ("text", "fact"),
    [
        ("I dropped my phone last week and the screen cracked, does the warranty cover that?", "cracked screens"),
        ("我的耳机用了两个月就坏了，耳机保修期是多久？", "耳机保修 6 个月"),
    ],
)
def test_a_policy_question_told_as_the_customers_own_story_is_answered_before_any_identity_check(
    visitor: Conversation, text: str, fact: str
) -> None:
    turn = run_turn(visitor, text)

    assert fact in turn.reply["text"] and turn.reply["sources"]
    assert turn.reply.get("awaiting") is None  # no "first I need to confirm it's you"
