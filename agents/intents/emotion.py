"""Lexicon emotion scoring and offensive-language detection, Chinese and English.

Pure functions, no I/O, deterministic, well under a millisecond per chat message.

`emotion_score` maps a message to [0, 1]: 0.5 is neutral, lower is more negative. It sums lexicon
weights (longest match first), flips a weight after a nearby negation (不/没/not/never ...), scales it
after an intensifier (非常/太/very/so ...), then adds cues of their own: runs of "!!!" or "？？？",
shouting in ALL CAPS, complaint phrases and emojis. The sum `s` becomes `0.5 + 0.5 * tanh(s / 2.2)`.

`is_offensive` is narrower: insults, profanity aimed at someone and accusations of fraud
(垃圾客服, 傻逼, 滚, idiot, wtf, scam ...). A profane intensifier alone ("my damn password") lowers
the score but is not an insult.
"""

from __future__ import annotations

import math
import re

# A message scoring below this is very negative: the classifier adds EMOTION_SENSITIVE for it.
EMOTION_SENSITIVE_THRESHOLD = 0.15
# Below this a message counts as negative at all (used by the evaluation: "predicted negative").
NEGATIVE_THRESHOLD = 0.4

# --- lexicons: word -> weight (negative = unpleasant) -------------------------------------------

_ZH_LEXICON: dict[str, float] = {
    # strong negative
    "垃圾": -2.0,
    "骗子": -2.2,
    "骗人": -2.0,
    "欺骗": -2.0,
    "忽悠": -1.6,
    "坑人": -1.8,
    "坑爹": -1.8,
    "太坑": -1.8,
    "黑心": -2.0,
    "恶心": -1.8,
    "气死": -2.2,
    "气人": -1.6,
    "生气": -1.6,
    "愤怒": -2.0,
    "火大": -1.8,
    "崩溃": -1.8,
    "疯了": -1.6,
    "受够": -2.0,
    "忍无可忍": -2.4,
    "无语": -1.4,
    "离谱": -1.6,
    "过分": -1.6,
    "太差": -2.0,
    "很差": -1.8,
    "极差": -2.2,
    "最差": -2.2,
    "差劲": -1.8,
    "差评": -1.8,
    "糟糕": -1.6,
    "失望": -1.6,
    "后悔": -1.6,
    "上当": -1.8,
    "假货": -2.0,
    "山寨": -1.6,
    "劣质": -1.8,
    "次品": -1.6,
    "烂": -1.4,
    "破": -0.8,
    "什么破": -1.8,
    "破玩意": -2.0,
    "什么玩意": -2.0,
    "什么鬼": -1.6,
    "搞什么": -1.6,
    "凭什么": -1.6,
    "有病": -1.8,
    "神经病": -2.0,
    "耍我": -1.8,
    "敷衍": -1.6,
    "推脱": -1.4,
    "推卸": -1.4,
    "踢皮球": -1.6,
    "不负责": -1.8,
    "不要脸": -2.2,
    "流氓": -2.0,
    "坑": -1.0,
    "烦死": -1.8,
    "烦": -1.0,
    "郁闷": -1.2,
    "难受": -1.0,
    "伤心": -1.2,
    "委屈": -1.2,
    "绝望": -2.0,
    "心累": -1.4,
    "投诉": -1.4,
    "举报": -1.4,
    "12315": -1.6,
    "退钱": -1.4,
    "赔偿": -1.0,
    "索赔": -1.2,
    "再也不": -1.8,
    "不会再买": -1.8,
    "别买": -1.8,
    "不推荐": -1.4,
    "千万不要": -1.6,
    "慎买": -1.6,
    "一星": -1.4,
    "呵呵": -1.0,
    "醉了": -1.2,
    "服了": -1.0,
    "晕": -0.6,
    "吐槽": -1.0,
    "抓狂": -1.8,
    # moderate negative
    "差": -1.2,
    "不好": -1.2,
    "不行": -1.0,
    "不满": -1.4,
    "不满意": -1.6,
    "不爽": -1.4,
    "不值": -1.2,
    "不靠谱": -1.4,
    "不舒服": -1.0,
    "不能用": -1.2,
    "用不了": -1.0,
    "不好用": -1.2,
    "难用": -1.4,
    "难看": -1.2,
    "难闻": -1.2,
    "难吃": -1.2,
    "不灵": -1.0,
    "不准": -0.8,
    "不符": -1.0,
    "不一样": -0.6,
    "坏了": -1.2,
    "坏": -0.8,
    "故障": -1.0,
    "毛病": -1.0,
    "问题": -0.6,
    "瑕疵": -1.0,
    "划痕": -0.8,
    "破损": -1.2,
    "碎了": -1.0,
    "裂": -0.8,
    "掉漆": -1.0,
    "掉色": -1.0,
    "起球": -1.0,
    "异味": -1.0,
    "臭": -1.0,
    "脏": -1.0,
    "旧": -0.6,
    "二手": -1.0,
    "发错": -1.2,
    "少发": -1.2,
    "漏发": -1.2,
    "错了": -0.6,
    "缺": -0.4,
    "卡顿": -1.0,
    "很卡": -1.2,
    "死机": -1.2,
    "闪退": -1.0,
    "发烫": -0.8,
    "慢": -0.8,
    "太慢": -1.4,
    "很慢": -1.2,
    "贵": -0.6,
    "太贵": -1.2,
    "缩水": -1.0,
    "粗糙": -1.0,
    "一般": -0.5,
    "凑合": -0.6,
    "将就": -0.8,
    "勉强": -0.6,
    "麻烦": -0.6,
    "折腾": -1.0,
    "浪费": -1.2,
    "还没": -0.3,
    "还没到": -1.0,
    "还没发货": -1.0,
    "还没收到": -1.0,
    "还没退": -1.0,
    "一直没": -1.0,
    "至今": -0.8,
    "到底": -0.8,
    "怎么还": -0.8,
    "为什么还": -1.0,
    "都几天了": -1.2,
    "好几天": -0.8,
    "等了": -0.6,
    "没人": -0.8,
    "没人理": -1.6,
    "不理": -1.2,
    "不回复": -1.2,
    "不处理": -1.2,
    "拖": -0.6,
    "拖延": -1.2,
    "欺负": -1.6,
    "退货": -0.5,
    "退款": -0.4,
    "算了": -0.5,
    "无奈": -1.0,
    "可惜": -0.8,
    "遗憾": -0.8,
    "担心": -0.6,
    "着急": -0.8,
    "急死": -1.6,
    "坑了": -1.6,
    "被骗": -2.0,
    "吃亏": -1.2,
    "亏": -0.6,
    "态度差": -1.8,
    "态度恶劣": -2.2,
    "恶劣": -1.8,
    "假的": -1.4,
    "不新鲜": -1.2,
    "霉": -1.2,
    "漏了": -1.2,
    "漏水": -1.2,
    "漏气": -1.0,
    "蓝屏": -1.2,
    "丑": -1.2,
    "陈旧": -1.0,
    "过时": -0.8,
    "一颗星": -1.6,
    "痛苦": -1.2,
    "哭死": -1.6,
    "悲剧": -1.6,
    "呸": -1.6,
    "乱七八糟": -1.4,
    "一无是处": -2.0,
    "没救了": -1.8,
    "诈骗": -1.8,
    "坏的": -1.0,
    "太小": -0.8,
    "太硬": -0.8,
    "太短": -0.6,
    "掉毛": -1.0,
    "褪色": -1.0,
    "开线": -1.0,
    "脱胶": -1.0,
    "划伤": -1.0,
    "尴尬": -1.0,
    "闹心": -1.2,
    "心寒": -1.6,
    "寒心": -1.6,
    "不耐用": -1.2,
    "退了": -0.6,
    "差点": -0.4,
    "糊弄": -1.6,
    "骗": -1.2,
    "气愤": -2.0,
    "恼火": -1.8,
    "窝火": -1.8,
    "退款难": -1.8,
    "扯皮": -1.6,
    "不给退": -1.6,
    "不给换": -1.6,
    "耽误": -1.0,
    "白等": -1.4,
    "催了": -0.8,
    # positive
    "好": 0.8,
    "很好": 1.4,
    "挺好": 1.2,
    "真好": 1.4,
    "太好了": 1.6,
    "不错": 1.2,
    "满意": 1.4,
    "很满意": 1.8,
    "非常满意": 2.0,
    "喜欢": 1.2,
    "推荐": 0.8,
    "好评": 1.6,
    "五星": 1.4,
    "赞": 1.4,
    "棒": 1.4,
    "给力": 1.4,
    "完美": 1.6,
    "优秀": 1.4,
    "惊喜": 1.2,
    "漂亮": 1.2,
    "好看": 1.2,
    "舒服": 1.0,
    "流畅": 1.0,
    "清晰": 0.8,
    "好用": 1.2,
    "方便": 0.8,
    "实惠": 1.0,
    "划算": 1.0,
    "便宜": 0.6,
    "值": 0.6,
    "值得": 1.0,
    "正品": 1.0,
    "快": 0.5,
    "很快": 1.0,
    "及时": 0.8,
    "耐心": 1.0,
    "热情": 1.0,
    "周到": 1.0,
    "专业": 0.8,
    "靠谱": 1.0,
    "放心": 0.8,
    "开心": 1.2,
    "高兴": 1.2,
    "谢谢": 0.8,
    "感谢": 1.0,
    "多谢": 0.8,
    "辛苦": 0.6,
    "爱了": 1.4,
    "回购": 1.0,
    "物美价廉": 1.6,
    "性价比高": 1.4,
    "精致": 1.0,
    "结实": 0.8,
    "可以": 0.3,
    "还行": 0.4,
    "还可以": 0.5,
    "没问题": 0.6,
    "挺": 0.2,
    "哈哈": 0.6,
    "喜欢的": 0.6,
    "好的": 0.4,
    "满分": 1.4,
    "超值": 1.4,
    "实用": 0.8,
    "不错的": 0.6,
    "干净": 0.8,
    "可信": 0.8,
    "合适": 0.6,
    "耐用": 0.8,
    "新鲜": 0.8,
    "好吃": 1.0,
    "好闻": 0.8,
    "舒适": 1.0,
    "惊艳": 1.4,
    "省心": 1.0,
    "顺利": 0.8,
    "感动": 1.0,
    "贴心": 1.2,
    "解决了": 0.8,
}

_EN_LEXICON: dict[str, float] = {
    # strong negative
    "worst": -2.2,
    "terrible": -2.0,
    "horrible": -2.0,
    "awful": -2.0,
    "disgusting": -2.2,
    "pathetic": -2.0,
    "ridiculous": -1.8,
    "unacceptable": -2.0,
    "outrageous": -2.0,
    "furious": -2.4,
    "livid": -2.4,
    "angry": -1.8,
    "pissed": -2.0,
    "hate": -1.8,
    "useless": -1.8,
    "incompetent": -2.0,
    "rude": -1.6,
    "scam": -2.2,
    "fraud": -2.2,
    "ripoff": -2.0,
    "rip off": -2.0,
    "ripped off": -2.0,
    "joke": -1.0,
    "garbage": -2.0,
    "trash": -1.8,
    "rubbish": -1.8,
    "crap": -1.8,
    "sucks": -1.8,
    "suck": -1.4,
    "nightmare": -2.0,
    "disaster": -1.8,
    "shame": -1.2,
    "shameful": -1.8,
    "disgrace": -2.0,
    "fed up": -2.0,
    "sick of": -1.8,
    "tired of": -1.4,
    "had enough": -1.8,
    "never again": -2.0,
    "fuck": -2.4,
    "fucking": -1.6,
    "shit": -2.0,
    "shitty": -2.2,
    "bullshit": -2.2,
    "wtf": -2.0,
    "damn": -1.0,
    "goddamn": -1.0,
    "dammit": -1.4,
    "bloody": -0.8,
    "hell": -0.8,
    "ugh": -1.2,
    "smh": -1.2,
    "lied": -1.8,
    "liar": -2.0,
    "liars": -2.0,
    "cheated": -2.0,
    "stole": -2.0,
    "disappointed": -1.6,
    "disappointing": -1.6,
    "disappointment": -1.6,
    "upset": -1.6,
    "frustrated": -1.6,
    "frustrating": -1.6,
    "annoyed": -1.4,
    "annoying": -1.4,
    "unhappy": -1.4,
    "dissatisfied": -1.6,
    "not happy": -1.6,
    "not satisfied": -1.6,
    "fail": -1.0,
    "failed": -1.0,
    "fails": -1.0,
    "failure": -1.2,
    "broken": -1.2,
    "defective": -1.4,
    "faulty": -1.2,
    "damaged": -1.2,
    "worse": -1.4,
    "poor": -1.2,
    "bad": -1.2,
    "wrong": -0.8,
    "mistake": -0.6,
    "problem": -0.6,
    "problems": -0.6,
    "issue": -0.4,
    "issues": -0.5,
    "error": -0.6,
    "bug": -0.6,
    "glitch": -0.8,
    "crash": -0.8,
    "crashes": -0.8,
    "crashing": -1.0,
    "slow": -0.8,
    "late": -0.8,
    "delay": -0.8,
    "delayed": -1.0,
    "lost": -0.8,
    "missing": -0.8,
    "stuck": -0.8,
    "cancelled": -0.6,
    "canceled": -0.6,
    "complaint": -1.2,
    "complain": -1.2,
    "complaining": -1.2,
    "overcharged": -1.6,
    "charged twice": -1.6,
    "no response": -1.4,
    "no reply": -1.4,
    "no one": -0.6,
    "nobody": -0.6,
    "ignored": -1.4,
    "ignoring": -1.4,
    "still waiting": -1.6,
    "still not": -1.0,
    "still no": -1.0,
    "still haven't": -1.2,
    "still hasn't": -1.2,
    "been waiting": -1.2,
    "waiting for": -0.6,
    "not working": -1.2,
    "doesn't work": -1.2,
    "does not work": -1.2,
    "stopped working": -1.4,
    "won't": -0.5,
    "can't": -0.5,
    "cannot": -0.5,
    "unable": -0.6,
    "outage": -1.2,
    "down": -0.4,
    "why": -0.5,
    "seriously": -0.6,
    "again": -0.3,
    "waste": -1.4,
    "wasted": -1.4,
    "cheap": -0.4,
    "hours": -0.3,
    "unreliable": -1.4,
    "worthless": -2.0,
    "unbelievable": -1.0,
    "terribly": -1.6,
    "sad": -1.2,
    "crying": -1.2,
    "nonsense": -1.6,
    "stupid": -1.8,
    "idiot": -2.2,
    "idiots": -2.2,
    "moron": -2.2,
    "morons": -2.2,
    "hopeless": -1.6,
    "regret": -1.4,
    "avoid": -1.0,
    "refund": -0.3,
    "return": -0.2,
    "yet": -0.3,
    "broke": -1.0,
    "ripped": -1.0,
    "smashed": -1.2,
    "unimpressed": -1.4,
    "dissapointed": -1.6,
    "dissapointing": -1.6,
    "twice": -0.3,
    "no longer": -0.6,
    "not received": -1.2,
    "haven't received": -1.2,
    "have not received": -1.2,
    "never received": -1.4,
    "never arrived": -1.4,
    "hasn't arrived": -1.0,
    "keeps": -0.4,
    "still": -0.4,
    "no help": -1.2,
    "what gives": -0.8,
    "banned": -1.0,
    "doesn't seem to work": -1.2,
    "no way": -0.6,
    "hung up": -1.2,
    "hangs up": -1.2,
    "sarcasm": -0.8,
    "mess": -1.0,
    "messed up": -1.4,
    "screwed": -1.6,
    "nowhere": -0.6,
    "complaints": -1.2,
    "rip-off": -2.0,
    "overpriced": -1.2,
    "unusable": -1.6,
    # positive
    "good": 1.0,
    "great": 1.6,
    "excellent": 2.0,
    "amazing": 2.0,
    "awesome": 2.0,
    "fantastic": 2.0,
    "wonderful": 2.0,
    "perfect": 1.8,
    "love": 1.6,
    "loved": 1.6,
    "loving": 1.4,
    "like": 0.4,
    "thanks": 1.2,
    "thank": 1.2,
    "thx": 1.0,
    "appreciate": 1.4,
    "appreciated": 1.4,
    "helpful": 1.4,
    "happy": 1.4,
    "glad": 1.2,
    "pleased": 1.4,
    "nice": 1.0,
    "cool": 0.8,
    "best": 1.2,
    "fast": 0.6,
    "quick": 0.6,
    "quickly": 0.6,
    "resolved": 1.2,
    "fixed": 0.8,
    "brilliant": 1.8,
    "kudos": 1.6,
    "enjoy": 1.2,
    "enjoying": 1.2,
    "beautiful": 1.4,
    "recommend": 1.0,
    "impressed": 1.6,
    "works": 0.4,
    "well done": 1.6,
    "lovely": 1.4,
    "sweet": 0.8,
    "congrats": 1.4,
    "welcome": 0.6,
    "please": 0.1,
    "yay": 1.4,
    "wow": 0.6,
    "superb": 1.8,
    "outstanding": 1.8,
    "smooth": 0.8,
    "friendly": 1.2,
    "satisfied": 1.2,
    "works great": 1.6,
    "worked": 0.4,
    "fun": 1.0,
    "excited": 1.2,
    "can't wait": 1.2,
}

_NEGATIVE_EMOJI = "😡🤬😠😤💢😭😢😞😩😫😒🙄👎💔😣😖😰😱🤮🖕"
_POSITIVE_EMOJI = "😀😃😄😁😊🙂😍🥰😘👍👏🙏❤💕🎉✨🌹😆🤗👌💯"

_ZH_NEGATORS = ("不", "没", "别", "未", "无", "勿")
_ZH_INTENSIFIERS = (
    "非常",
    "太",
    "很",
    "特别",
    "超",
    "极其",
    "十分",
    "真",
    "巨",
    "贼",
    "好",
    "最",
    "超级",
    "实在",
    "简直",
)
_EN_NEGATION = re.compile(
    r"\b(?:not|no|never|dont|don't|didnt|didn't|doesnt|doesn't|isnt|isn't|wasnt|wasn't|arent|aren't|"
    r"wont|won't|cant|can't|cannot|without|hardly|nothing|neither|nor)\b"
)
_EN_INTENSIFIER = re.compile(
    r"\b(?:very|so|extremely|really|totally|absolutely|completely|utterly|super|incredibly|"
    r"fucking|such|too|most|beyond|truly|seriously)\W*$"
)


def _alternation(words: list[str]) -> str:
    return "|".join(re.escape(w) for w in sorted(words, key=len, reverse=True))


# words that contain a lexicon word but are neutral (破壁机 is a blender, 差价 a price difference)
_ZH_NEUTRAL = [
    "破壁",
    "差价",
    "差不多",
    "差距",
    "问题吗",
    "没问题",
    "好几",
    "好多",
    "好像",
    "好久",
    "好不好",
    "只好",
    "好处",
    "快递",
    "快充",
    "尽快",
    "加快",
    "块",
    "值班",
    "数值",
    "烦请",
    "麻烦您",
    "麻烦你",
]
_ZH_RE = re.compile(_alternation(list(_ZH_LEXICON) + _ZH_NEUTRAL))
_EN_RE = re.compile(r"(?<![a-z'])(?:" + _alternation(list(_EN_LEXICON)) + r")(?![a-z'])")
_CJK_RE = re.compile(r"[\u4e00-\u9fff]")
_CAPS_WORD = re.compile(r"\b[A-Z]{3,}\b")
_WORD = re.compile(r"\b[A-Za-z]{3,}\b")
_EXCLAIM = re.compile(r"[!！]{2,}")
_QUESTION = re.compile(r"[?？]{2,}|[?？][!！]|[!！][?？]")
_ACRONYMS = frozenset({"NFC", "USB", "OLED", "LCD", "SIM", "GPS", "RAM", "ROM", "VAT", "ETA", "CEO", "LTE", "APP"})

# Complaint phrases that carry frustration even without a lexicon word ("still not", "still waiting" are
# lexicon words: counted twice, "my order, still not shipped, should be blue" read as anger).
_ZH_COMPLAINT = re.compile(
    r"(?:怎么(?:还|又|都)|为什么(?:还|又|一直|不)|到底(?:什么|怎么|要|还|能)|(?:几|好几|多少|十几|\d+)\s*天了|"
    r"一直(?:不|没|都)|说好的|给个说法|什么态度|没有下文|石沉大海|等了(?:好|很|半)|什么时候才)"
)
_EN_COMPLAINT = re.compile(
    r"(?:\bfor (?:over |more than )?(?:\d+|two|three|four|five|six|several|many) (?:days|weeks|hours|months)\b|"
    r"\bstill (?:nothing|broken)\b|\bwhat the\b|\bare you kidding\b|"
    r"\bthis is a joke\b|\bi want my money back\b|\bi(?:'m| am) done\b|\bnever (?:buying|ordering|again)\b|"
    r"\bhow (?:many|much) (?:more )?times\b|\bno one (?:has|is|will)\b)"
)


# Asking what would happen ("要是一直没去取会怎么样", "what happens if I never pick it up?") describes
# no experience: its "never" and "一直没" are conditions, not complaints.
_HYPOTHETICAL = re.compile(
    r"会怎(?:么)?样|会怎么办|怎么处理|如果|要是|假如|万一|\bwhat (?:happens|if)\b|\bwhat would\b|"
    r"^\s*(?:and\s+)?if\b|\bin case\b|\bsuppose\b",
    re.IGNORECASE,
)
_ZH_NEGATED_TAIL = re.compile(r"(?:不|没|没有|别|未|无|毫无|并不|从不|从没|不是|一点都不|一点也不)$")
_ZH_FILLER_TAIL = re.compile(r"(?:很|太|是|那么|这么|怎么|什么|够|算|大|特别|非常|十分|真的|真|太过|有点|有些|多|的)+$")


def _zh_modifier(text: str, start: int) -> tuple[bool, bool]:
    """Whether the Chinese match at `start` is negated / intensified by the few characters just before it."""
    window = re.split(r"[，。！？,.!?；;、\s]", text[max(0, start - 5) : start])[-1]
    intensified = any(window.endswith(w) for w in _ZH_INTENSIFIERS) or any(
        w in window[-3:] for w in ("非常", "特别", "十分", "超级")
    )
    core = _ZH_FILLER_TAIL.sub("", window)
    negated = bool(_ZH_NEGATED_TAIL.search(core))
    return negated, intensified and not negated


def _en_modifier(lower: str, start: int) -> tuple[bool, bool]:
    window = lower[max(0, start - 24) : start]
    # only the last three words count
    window = " ".join(window.split()[-3:])
    return bool(_EN_NEGATION.search(window)), bool(_EN_INTENSIFIER.search(window))


def _apply(weight: float, negated: bool, intensified: bool) -> float:
    if negated:
        # "not good" is bad; "not bad" is only mildly good
        weight = -0.8 * weight if weight > 0 else -0.4 * weight
    if intensified:
        weight *= 1.6
    return weight


def _raw_score(text: str) -> float:
    s = 0.0
    if _CJK_RE.search(text):
        for m in _ZH_RE.finditer(text):
            weight = _ZH_LEXICON.get(m.group())
            if weight is None:
                continue  # a neutral word that merely contains a lexicon word
            neg, inten = _zh_modifier(text, m.start())
            s += _apply(weight, neg, inten)
        if _ZH_COMPLAINT.search(text):
            s -= 1.0
    lower = text.lower()
    if re.search(r"[a-z]", lower):
        for m in _EN_RE.finditer(lower):
            neg, inten = _en_modifier(lower, m.start())
            s += _apply(_EN_LEXICON[m.group()], neg, inten)
        if _EN_COMPLAINT.search(lower):
            s -= 1.0
        caps = [w for w in _CAPS_WORD.findall(text) if w not in _ACRONYMS]
        words = _WORD.findall(text)
        if len(caps) >= 2 and len(caps) >= 0.5 * len(words):
            s = s * 1.4 - 0.8  # shouting
    for ch in text:
        if ch in _NEGATIVE_EMOJI:
            s -= 1.2
        elif ch in _POSITIVE_EMOJI:
            s += 1.0
    if s < 0 and _HYPOTHETICAL.search(text):
        s *= 0.15
    if _EXCLAIM.search(text):
        s = s * 1.3 - 0.3 if s < 0 else s * 1.2
    if _QUESTION.search(text):
        s -= 0.8
    return s


def emotion_score(text: str) -> float:
    """0 (very negative) .. 0.5 (neutral) .. 1 (very positive)."""
    if not text:
        return 0.5
    if is_offensive(text):
        return round(min(0.5 + 0.5 * math.tanh(_raw_score(text) / 2.2), 0.1), 4)
    return round(0.5 + 0.5 * math.tanh(_raw_score(text) / 2.2), 4)


# --- offensive language ---------------------------------------------------------------------------

_ZH_OFFENSIVE = re.compile(
    r"(?:傻逼|傻b|傻B|煞笔|沙比|傻叉|(?<![A-Za-z])(?:sb|SB)(?![A-Za-z])|你妈(?!妈)|尼玛|他妈(?!妈)|"
    # "妈的" swears, "我妈的手机" is my mum's phone
    r"(?<![我她爸老姑姨舅婶岳])妈的|tmd|TMD|nmsl|草泥马|操你|"
    r"日你|狗日|卧槽|我靠|去死|找死|废物|白痴|智障|脑残|弱智|蠢货|混蛋|王八蛋|人渣|狗东西|畜生|贱人|"
    r"骗子(?!短信|电话)|狗屁|放屁|屁用|有病吧|神经病|不要脸|流氓(?!软件|应用|广告|app)|(?<![打翻滚])滚(?![动筒轮珠屏子烫开水])|"
    r"垃圾(?![桶袋箱站分清短邮信处回])|黑心(?:商家|店|公司))"
)
_EN_OFFENSIVE = re.compile(
    r"(?:\bfuck(?:ing)? (?:you|off|this|that|u|ur|your|yall)\b|\bf\*+k|\bfuck\b|\bstfu\b|\bwtf\b|\bbullshit\b|"
    r"\bshit(?:ty)?\b|\bidiots?\b|\bmorons?\b|\bretard(?:ed|s)?\b|\bassholes?\b|\bbastards?\b|\bbitch(?:es)?\b|"
    r"\bdumbass\b|\bscam(?:mers?|med|s)?\b|\b(?:are|a|bunch of) frauds?\b|\bfraudsters?\b|\bcrooks?\b|"
    r"\bthie(?:f|ves)\b|\bliars?\b|"
    r"\bpiss off\b|\bscrew you\b|\bshut up\b|\bgo to hell\b|\bgo die\b|"
    r"\b(?:you(?:'re| are)?|u r|ur|this|what a|such a) (?:so |really |fucking )?(?:stupid|dumb|useless|pathetic)\b|"
    r"\b(?:stupid|dumb|useless|worthless|pathetic) (?:bot|robot|ai|company|store|shop|service|people|staff)\b|"
    r"\b(?:garbage|trash|crap|joke of a) (?:service|company|store|shop|support|bot)\b)"
)


def is_offensive(text: str) -> bool:
    """True for insults, profanity aimed at someone and accusations of fraud, in Chinese or English."""
    if not text:
        return False
    if _ZH_OFFENSIVE.search(text):
        return True
    return bool(_EN_OFFENSIVE.search(text.lower()))
