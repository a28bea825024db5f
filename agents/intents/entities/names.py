"""People's names, after an introduction: "my name is Ada Lovelace", "I'm Jean-Luc", 我叫李伟, 收件人：王芳.

A name stops at the first word that cannot be part of one; 我是 / 我叫 introduce a Chinese name only when
a surname follows (我是来退货的 is not a name).
"""

from __future__ import annotations

import re

from agents.intents.entities.scan import Scan
from agents.intents.entities.text import is_cjk

_UPPER = "A-ZÀ-ÖØ-Þ"
_LOWER = "a-zß-öø-ÿ"
# A capitalised word (Ada, O'Brien, Jean-Luc, McDonald, Seán), not the start of a longer word.
_NAME_WORD = rf"[{_UPPER}][{_LOWER}]*(?:['’\-][{_UPPER}]?[{_LOWER}]+|[{_UPPER}][{_LOWER}]+)*(?![^\W\d_])"
_EN_NAME = rf"{_NAME_WORD}(?:[ ]+{_NAME_WORD}){{0,3}}"
_EN_NAME_RE = re.compile(
    r"(?<![A-Za-z])(?P<intro>(?i:my[ ]+name[ ]+is[ ]+|my[ ]+name['’]s[ ]+|(?:full[ ]+)?name[ ]*:[ ]*|name[ ]+is[ ]+"
    r"|i[ ]?['’]?m[ ]+|i[ ]+am[ ]+|this[ ]+is[ ]+|call[ ]+me[ ]+))"
    rf"(?P<name>{_EN_NAME})"
)
_ZH_NAME_RE = re.compile(
    r"(?P<intro>我的名字是|我的名字叫|名字是|名字叫|姓名是|姓名为|姓名|联系人|收件人|收货人|我叫|我是|本人)[ ]?:?[ ]?"
    rf"(?P<name>[\u4e00-\u9fff]{{2,4}}|{_EN_NAME})"
)
_NAME_STOP_WORDS = frozenset(
    """a an the and or but so i im me my we you he she it they this that here there not no yes sorry just still
    also very really too happy glad sure fine good great ok okay new back done unable confused angry upset tired
    frustrated disappointed annoyed worried interested customer member vip buyer from in at on with about for to of
    chinese english american british canadian australian indian calling writing contacting looking trying hoping
    wondering having going getting asking waiting using planning thinking please thanks thank hi hello hey dear
    order phone email number""".split()
)
# Common Chinese surnames; 我叫/我是 introduce a name only when one follows (我是来退货的 is not a name).
_ZH_SURNAMES = frozenset(
    "王李张刘陈杨黄赵吴周徐孙马朱胡郭何高林罗郑梁谢宋唐许韩冯邓曹彭曾肖田董袁潘蒋蔡余杜叶程苏魏吕丁任沈姚卢姜崔钟谭陆汪范金"
    "石廖贾夏韦付傅方白邹孟熊秦邱江尹薛闫阎段雷侯龙史陶黎贺顾毛郝龚邵万钱严覃武戴莫孔汤康施文牛樊葛邢齐易乔伍庞颜倪庄聂章"
    "鲁岳翟殷詹申欧耿兰焦俞左柳甘祝包宁尚符舒阮柯纪梅童凌毕季裴霍涂苗谷盛曲翁冉骆蓝游辛靳管柴蒙鲍华喻祁蒲房滕屈饶牟艾尤"
    "穆卓缪简项芦麦褚娄窦戚岑景党费卜冷晏席卫米柏宗瞿桂佟臧闵苟邬卞姬仇栾隋刁沙荣巫寇桑郎甄丛仲虞敖巩佘迟邝"
)
_ZH_COMPOUND_SURNAMES = frozenset(
    "欧阳 司马 诸葛 上官 东方 慕容 令狐 皇甫 尉迟 公孙 司徒 夏侯 长孙 宇文 轩辕 端木 西门 南宫 独孤 呼延".split()
)
_ZH_NAME_STOP_CHARS = frozenset(
    "的了呢啊吗呀哦哈嘛吧在是我你他她它们想要买问请能会有订来去说和跟与就也都还刚已这那您啦喔噢咯呗嗯哎诶先再又很太最不没"
    "电手邮快退换客购收发给把被让从到因所但而或及等"
)
# Words that start with a surname but are not names: 我是黄金会员, 我是华为用户, 我是江苏的.
_ZH_NAME_NOT = tuple(
    "高级 黄金 白金 金牌 金卡 王者 马上 方便 石头 钱包 毛病 万一 周末 江湖 华为 荣耀 金立"
    " 江苏 江西 武汉 沈阳 宁波 宁夏 温州 郑州 徐州 苏州 唐山 石家庄 柳州 桂林 黄石 秦皇岛 兰州 包头 金华 常州"
    " 于是 方面 文件 史上".split()
)
_ZH_NAME_INTROS_NEEDING_SURNAME = frozenset({"我叫", "我是", "本人"})


def _english_name(scan: Scan, start: int, name: str, intro: str) -> str | None:
    """Cut a captured name at the first word that is not a name; None if nothing is left."""
    words: list[str] = []
    position = start
    for word in name.split(" "):
        if not word:
            position += 1
            continue
        begin = scan.text.find(word, position)
        position = begin + len(word)
        lower = word.lower()
        if lower in _NAME_STOP_WORDS or len(word) < 2 or not scan.free(begin, position):
            break
        if not words and lower.endswith("ing"):
            break
        words.append(word)
    intro = " ".join(intro.lower().split())
    if not words or (intro.startswith("this") and len(words) < 2):
        return None
    return " ".join(words)


def _chinese_name(name: str, intro: str) -> str | None:
    if name.startswith(_ZH_NAME_NOT):
        return None
    compound = name[:2] in _ZH_COMPOUND_SURNAMES
    if intro in _ZH_NAME_INTROS_NEEDING_SURNAME and not compound and name[0] not in _ZH_SURNAMES:
        return None
    if name[0] in _ZH_NAME_STOP_CHARS:
        return None
    cut = len(name)
    for i, ch in enumerate(name[1:], start=1):
        if ch in _ZH_NAME_STOP_CHARS:
            cut = i
            break
    name = name[: min(cut, 4 if compound else 3)]
    return name if len(name) >= (3 if compound else 2) else None


def extract_names(scan: Scan) -> None:
    text = scan.text
    for m in _EN_NAME_RE.finditer(text):
        name = _english_name(scan, m.start("name"), m["name"], m["intro"])
        if name:
            scan.names.append((m.start("name"), name))
    for m in _ZH_NAME_RE.finditer(text):
        raw = m["name"]
        if is_cjk(raw[0]):
            name = _chinese_name(raw, m["intro"])
            if name and not scan.free(m.start("name"), m.start("name") + len(name)):
                name = None
        else:
            name = _english_name(scan, m.start("name"), raw, m["intro"])
        if name:
            scan.names.append((m.start("name"), name))
