"""Small talk: whether a whole clause is only a greeting, thanks, acknowledgement or bare topic header.

Both the clause splitter (a greeting stands alone: "您好，…") and the keyword rules (chitchat is a tier of
its own, matched on the whole clause only) ask this, so it sits below both.
"""

from __future__ import annotations

import re

_CHITCHAT_EN = (
    r"(?:hi+|hello+|hey+|hiya|yo|good (?:morning|afternoon|evening|night|day)|thanks?(?: a lot)?|thank you(?: so much|"
    r" very much)?|thx|ty|cheers|much appreciated|ok(?:ay)?|k|kk|alright|all right|sure|cool|nice|great|good|got it|"
    r"i see|understood|noted|yes|yeah|yep|no|nope|no thanks|bye|goodbye|see you|see ya|later|lol|haha+|hmm+|"
    r"never ?mind|that'?s all|that'?s it|that'?s fine|perfect|awesome|fine|you too|no worries|my bad|sorry|"
    r"have a (?:nice|good|great) (?:day|one|evening)|who are you|how are you|i'?m (?:good|fine|ok)|"
    r"what'?s your name|are you (?:a )?(?:bot|robot|human|real(?: person)?|ai)|you there|are you still there|"
    r"anyone there|anyone|hello anyone|you'?re (?:funny|smart|helpful|great|welcome)|welcome|i'?ll try|will do|"
    r"please|pls|one moment|hold on|wait|let me check|i have a question|can i ask (?:you )?(?:something|a question))"
)
_CHITCHAT_ZH = (
    r"(?:你好|您好|哈喽|嗨|客服|在吗|在不在|在么|在嘛|在没|在不|在|有人吗|有人在吗|有没有人|谢谢|谢啦|多谢|感谢|谢了|好的|好滴|好哒|"
    r"好嘞|好咧|好吧|好了|好|嗯+|恩+|哦+|噢+|喔+|额+|呃+|行吧|行|可以|ok|okay|明白|了解|知道|收到|懂|辛苦|麻烦|哈+|呵呵|"
    r"嘿嘿|嘻嘻|拜拜|再见|晚安|早上好|下午好|晚上好|早|亲亲|亲|没事|没问题|没有问题|没别的|没有了|没了|没有呢|暂时没有|昂|暂时没有了|没有别的了|不用了|不用|算了|这样啊|是吗|"
    r"是的|是啊|对的|对啊|对|真的吗|问题解决了|解决了|搞定了|可以了|晕|打错了|打错字了|为什么|为啥|怎么说|需要|不需要|如上|醉了|服了|无语了|无语|同意|不客气|客气|请稍等|稍等|等等|等一下|不好意思|打扰了|抱歉|[你您]是(?:机器人|真人|人工|谁)|"
    r"你叫什么(?:名字)?|你真(?:聪明|棒)|想想|看看|试试|试一下|试下|找找|研究研究|研究一下|再说|那就这样|什么意思|啥意思|"
    r"你|您|那个|那|我|先|再|就|去|一下|吧|了|呢|啊|呀|哈|的|啦|嘛|么|吗|呐|哇|咯|喽|哟|暂时|其他|都|也|还|请问|请)"
)
_CHITCHAT_RE = re.compile(rf"^(?:{_CHITCHAT_EN}|{_CHITCHAT_ZH})+$", re.IGNORECASE)
# platform emoticon codes ("#E-s12", WeChat's "[微笑]") count as emojis
_EMOTICON_CODE = re.compile(r"#E-[A-Za-z]+\d+|\[[\u4e00-\u9fff]{1,4}\]")
_STRIP_FOR_CHITCHAT = re.compile(
    r"[\s,，.。!！?？~～、…:：;；'\"“”()（）\[\]【】\-_#*^]+|[\U0001F300-\U0001FAFF\u2600-\u27BF]"
)


# A bare topic header, as menus send it: "售后咨询", "手机类-售前咨询", "收货后疑问解答"
_TOPIC_HEADER = re.compile(
    r"^(?:[\u4e00-\u9fffA-Za-z0-9]{1,6}类)?[\s\-—_]*[\u4e00-\u9fff]{0,6}(?:咨询|答疑|疑问解答|问题解答)$"
)


def standalone_chitchat(text: str) -> bool:
    """The whole clause is a greeting / thanks / acknowledgement / small talk (or a bare topic header)."""
    original = text
    text = _EMOTICON_CODE.sub(" ", text)
    if _TOPIC_HEADER.match(text.strip()):
        return True
    core = _STRIP_FOR_CHITCHAT.sub("", text.lower())
    if not core:
        return bool(original.strip())  # only emojis / emoticon codes / links / punctuation
    # English tokens need separating spaces; match the space-joined words too
    words = re.sub(r"[^\w\u4e00-\u9fff']+", " ", text.lower()).strip()
    return bool(_CHITCHAT_RE.match(core)) or bool(
        re.fullmatch(rf"(?:{_CHITCHAT_EN})(?:\s+(?:{_CHITCHAT_EN}))*", words, re.IGNORECASE)
    )
