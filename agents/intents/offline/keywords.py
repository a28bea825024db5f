"""Priority keyword rules: the intents a clause's own words name, whatever its neighbours resemble.

Tiers, highest first: offensive language, then ticket words (return, refund, exchange, repair, invoice,
cancel, modify, complaint, human), business words (logistics, order, stock, price, compare, specs,
recommend), small talk (whole clause only), knowledge (fault, how-to, policy, faq). A few specific phrases
override the tiers ("refund policy" is a policy question, "track my refund" an order query).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from agents.intents.emotion import is_offensive
from agents.intents.offline.chitchat import standalone_chitchat
from agents.intents.offline.clauses import POSTAL_ADDRESS
from agents.taxonomy import Intent


@dataclass(frozen=True)
class _Rule:
    intent: Intent
    pattern: re.Pattern[str]
    confidence: float
    unless: re.Pattern[str] | None = None


def _rx(pattern: str) -> re.Pattern[str]:
    return re.compile(pattern, re.IGNORECASE)


_REFUND_POLICY = (
    r"(?:refund|return|exchange|cancell?ation|warranty|shipping|delivery|price protection|money back)s?\s+"
    r"(?:polic(?:y|ies)|rules?|terms|conditions|window)|"
    r"\bin (?:what|which) (?:cases?|situations?|circumstances)|\bunder what (?:conditions|circumstances)|"
    r"\beligible for (?:a )?(?:refund|return)|\bwhen am i eligible|\bwhen (?:can|could) i (?:ask for|get|request) "
    r"(?:a )?refund|\brestocking fee|"
    # What something costs beyond the price (a fee, a penalty, a charge) is the store's policy.
    r"\b(?:fees?|penalt(?:y|ies))\b|\b(?:the|any|a|an|what|which|extra|hidden)\s+(?:[\w-]+\s+){0,2}charges?\b"
    r"(?!\s+(?:me|my|it|you))|"
    r"\b(?:fees?|charges?|penalt\w+)\s+(?:for|to|if i|when i|of)\s+(?:cancel|terminat|withdraw)\w*|"
    r"(?:delivery|shipping)\s+(?:options?|methods?|choices|types|alternatives)|"
    r"\b(?:options?|methods?|ways)\s+(?:for|of)\s+(?:delivery|shipping)|"
    r"\bhow long is the (?:warranty|return)|\bwarranty (?:period|cover\w*|last\w*)|what does the warranty|"
    r"\bship internationally|\bsame-?day delivery|\bexpress delivery|\bpick ?up in (?:the )?store|"
    r"\bis (?:the )?cancell?ation free|\bdeliver on weekends|\brefundable\b|\baccording to (?:your|the) polic|"
    r"\bhow long (?:do |does |will |would )?refunds (?:usually |normally |typically )?take"
)
_ZH_POLICY = (
    r"(?:退款|退货|换货|保修|价保|退换|售后|延保|配送|发货|取消)(?:的)?(?:政策|规则|条件|要求|期限|标准|规定)|"
    r"什么情况(?:下)?(?:可以|能|才能)?(?:退|换)|手续费|违约金|(?:配送|送货|快递)方式|支持哪些快递|送货上门|"
    r"自提|当日达|次日达|保修(?:多久|期|范围|包括|哪些)|运费谁|运费险|拆封.{0,4}(?:能|可以|还能)退|"
    r"激活.{0,6}(?:能|可以)?(?:退|七天)|七天无理由.{0,6}(?:规则|条件|吗|么|怎么算)|价格保护|价保|"
    r"多少天(?:内)?(?:可以|能)?(?:退|换)|(?:国补|补贴|特价|定制|激活|拆封|使用过|用过|赠品)(?:的|了)?(?:商品|产品|手机|订单)?"
    r".{0,4}(?:能|可以|还能|支持)(?:退|换)|人为损坏|(?:能|可以)发顺丰|(?:取消订单|取消).{0,4}(?:收费|扣钱|要钱)"
)
_REFUND_STATUS = (
    r"\b(?:track\w*|status|progress|update[sd]?|news|anything new|follow(?:ing)? up|where(?:'s| is)|check\w*)\b"
    r".{0,30}\b(?:refund|reimbursement|money)|"
    r"\brefund\w*\b.{0,25}\b(?:status|progress|update|yet|arrived?|processed|approved|issued|completed|"
    r"on (?:its|the) way"
    r"|come through|show up|hit)\b|"
    r"\b(?:has|have|was|is|did)\b.{0,12}\b(?:refund|money)\b.{0,20}\b(?:been|processed|sent|returned|approved|issued"
    r"|on (?:its|the) way|arrived?|back)\b|\bwhen (?:will|do|does|can|should) i (?:get|receive|see) (?:my|the) refund|"
    r"\bhow long (?:until|till|before|for) (?:the|my) refund|\brefund hasn'?t|"
    r"\b(?:anything|something) wrong with (?:my|the) refund"
)
_ZH_REFUND_STATUS = (
    r"(?:退款|退的钱|钱|退货的钱).{0,6}(?:到哪|进度|状态|什么时候到|多久(?:能)?到|到账|审核|处理了|怎么还没|还没到|退了吗|"
    r"退了没|退回来|退到哪|原路|一直显示|到哪一步|什么时候能退回|什么时候退回)|"
    r"(?:钱|退款)什么时候(?:能)?(?:退回来|到)"
)

# An order named by its id ("#W2912646") is as good as the word "order" in a rule.
_ORDER = r"(?:\borders?\b|#\s*[A-Za-z]?\d{4,}|\b[A-Za-z]\d{6,}\b)"
# The payment an order is moved off is refunded: "…paid with my gift card and the original method refunded",
# "原来的卡退款". Said beside a payment change, that refund is part of the change, not a return.
OLD_METHOD_REFUNDED = (
    r"\b(?:original|old|previous|first|current|other)\s+(?:payment\s+)?(?:method|card|one|payment|account)\b"
    r".{0,15}\brefund\w*|\brefund\w*\s+(?:the|my|to\s+(?:the|my))\s+(?:original|old|previous|first|current)\s+"
    r"(?:payment\s+)?(?:method|card|payment|account)\b|"
    r"(?:原来|之前|原先|原)的?(?:卡|信用卡|银行卡|礼品卡|支付方式|付款方式|账户|paypal).{0,4}(?:退款|退回|退还|退)"
)
_NEW_METHOD = (
    r"\b(?:paid|pay|charged?|billed?|put|use|switch\w*|move)\b.{0,40}\b(?:with|to|on|onto|via|using)\b|"
    r"\b(?:credit_card|gift_card|paypal)_\w+|改用|换成|用.{0,12}(?:支付|付款)"
)

_RULES: list[_Rule] = [
    # --- overrides that would otherwise be caught by ticket words -------------------------------------------
    _Rule(
        Intent.POLICY_INQUIRY,
        _rx(_REFUND_POLICY + "|" + _ZH_POLICY),
        0.85,
        unless=_rx(r"\b(?:credit_card|gift_card|paypal)_\w+"),  # one's own payment method: a request
    ),
    _Rule(Intent.ORDER_QUERY, _rx(_REFUND_STATUS + "|" + _ZH_REFUND_STATUS), 0.85),
    _Rule(Intent.FAQ, _rx(r"newsletter|mailing list|\b(?:un)?subscri\w*|订阅|退订"), 0.85),
    # Changing how an order is paid is an order change, not a question about payment methods.
    _Rule(
        Intent.MODIFY_ORDER,
        _rx(
            r"(?:改|换|修改|更换|变更).{0,12}(?:支付|付款)|(?:支付|付款)方式.{0,6}(?:改|换)|"
            # "settle order #W1 with my PayPal instead", "make #W1 paid by my visa"
            r"\b(?:settle|pay for|pay off)\b.{0,30}\b(?:with|using|by|on)\s+(?:my|the|a)?\s*(?:[\w-]+\s+){0,2}?"
            r"(?:paypal|visa|mastercard|amex|card)\b|"
            # wanting it paid another way, not telling how it was paid ("I paid with my card, …")
            r"\b(?:want|like|prefer|rather|need|have|get|make|can|could|should|would)\b[^.?!]{0,30}\b(?:be\s+)?"
            r"paid (?:by|with|using|via)\b|"
            r"\b(?:change|switch|update|swap|replace|alter|modify)\b.{0,20}\bpayment\b.{0,30}"
            + _ORDER
            + r"|"
            + _ORDER
            + r".{0,30}\b(?:change|switch)\b.{0,15}\bpayment\b|"
            r"\b(?:charge[sd]?|bill(?:ed)?)\b.{0,30}\bto\s+(?:my|the|a|an)\b.{0,20}\b(?:card|paypal|account)\b|"
            r"\b(?:change|switch|update)\b.{0,10}\bpayment method\b.{0,10}\bto\b|"
            r"\b(?:charge|bill)\s+(?:the|my|it\s+to\s+(?:the|my))\s+(?:[\w-]+\s+){0,2}(?:card|paypal|account)\b|"
            r"\b(?:charge|bill)\s+(?:it\s+to\s+)?(?:credit_card|gift_card|paypal)_\w+|"
            r"\bpayment (?:change|update|switch)\b|"
            r"\b(?:move|switch|put|transfer)\b.{0,20}\bpayment\b.{0,30}\b(?:to|onto|over to)\b|"
            r"\b(?:pay|paying)\b.{0,25}\bwith\b.{0,30}\binstead\b|"
            r"\buse\b.{0,30}\b(?:card|paypal|visa|mastercard|amex)\b.{0,40}\binstead\b|"
            # another card for an order: "charge a different card", "… instead of my debit card"
            r"\b(?:charge|bill|use|try)\s+(?:a|another|my|the)\s+(?:different|other|new|second)\s+(?:card|payment)\b|"
            r"\binstead of (?:my|the)\s+(?:[\w-]+\s+){0,2}(?:card|paypal)\b|"
            r"(?<!sim)换(?:一?张|个)卡|用错(?:了)?卡|(?:改|换)成.{0,6}(?:礼品卡|信用卡|银行卡|借记卡|paypal)|"
            # the wrong method charged: "the wrong card got charged for #W1", "I paid for #W1 with the wrong thing"
            r"\bwrong (?:card|payment(?: method)?|account)\b.{0,20}\b(?:charged|used|billed)\b|"
            r"\b(?:paid|charged|billed)\b.{0,40}\b(?:with|to|on) the wrong\b|"
            r"\b(?:pay|paid|put|move)\b.{0,20}" + _ORDER + r".{0,20}\b(?:with|on|to|by)\b.{0,15}"
            r"\b(?:my|the|a)?\s*(?:credit card|gift card|paypal|card|(?:credit_card|gift_card|paypal)_\w+)|"
            r"\b(?:change|modify|swap|switch)\b.{0,12}\bitems?\b.{0,25}(?:\bpending )?" + _ORDER
        ),
        0.85,
    ),
    # An order and one of the customer's payment methods named together, with no other request: the
    # method is what should pay for the order ("would it be possible to use credit_card_1199336 for #W1?").
    _Rule(
        Intent.MODIFY_ORDER,
        _rx(
            r"(?=.*" + _ORDER + r")(?=.*(?:\b(?:credit_card|gift_card|paypal)_\w+|\bcard ending (?:in )?\d{4}\b|"
            r"尾号\s*\d{4}))"
        ),
        0.8,
        unless=_rx(
            r"^(?!.*(?:" + OLD_METHOD_REFUNDED + r")).*(?:\b(?:return\w*|refund\w*|exchang\w*|cancel\w*|"
            r"send (?:it|them|\w+) back|price difference|the difference)\b|退|换货|取消|差价)"
        ),
    ),
    _Rule(
        Intent.FAQ,
        _rx(r"\bp\w{1,3}ment (?:methods?|options?|types?)|\bways to pay\b|付款方式|支付方式"),
        0.85,
        # one's own stored method named ("use payment method paypal_1 for the difference") is a request
        unless=_rx(
            r"\b(?:issue|problem|error|fail\w*|declined|not working)|#\s*[A-Za-z]?\d{4,}|"
            r"\b(?:credit_card|gift_card|paypal)_\w+"
        ),
    ),
    # --- ticket words ------------------------------------------------------------------------------------------
    _Rule(
        Intent.HUMAN_REQUEST,
        _rx(
            r"\b(?:talk|speak|chat|transfer|connect|put me through|pass me|get me|reach|call|contact|need|want)\b"
            r".{0,25}"
            r"\b(?:human|real person|live (?:agent|rep|person|chat)|agent|representative|rep|operator|someone|"
            r"somebody|a person|staff member|manager|supervisor)\b|"
            r"^\s*(?:human|agent|operator|representative|live agent|real person)(?: please| pls)?\s*[.!]*\s*$|"
            r"\bnot (?:a|the|this) bot\b|\bstop the bot\b|"
            r"转人工|人工(?!智能|费|成本|降雨)|真人|客服专员|人工坐席|找.{0,3}经理|换个?人(?:来|回复|处理)?$"
        ),
        0.9,
        unless=_rx(
            r"\bare you (?:a )?(?:human|real|person|bot|robot)|[你您]是(?:真人|人工|机器人)|是(?:真人|人工|机器人)吗"
        ),
    ),
    _Rule(
        Intent.COMPLAINT,
        _rx(
            r"\b(?:complain\w*|complaints?|grievance|claim against|file a claim|"
            r"lodge a claim|escalate)\b|\b(?:file|lodge|make|submit|open|filing|lodging|making) an? (?!warranty)"
            r"(?:\w+ )?claim\b|投诉|举报|12315|给(?:我)?(?:个|一个)说法|"
            r"要(?:个)?说法|向上级反映|反映.{0,6}问题"
        ),
        0.85,
    ),
    _Rule(
        Intent.REPAIR,
        _rx(
            # "can you fix it?" asks the store; "I need to fix it" is the customer putting something right
            r"\brepair\w*|\bfix(?:ed|ing)? (?:my|the|this)\b(?! time)|\b(?:you|u)\s+(?:\w+\s+)?fix it\b|"
            r"\bget (?:it|my \w+) fixed\b|service cent(?:er|re)|"
            r"warranty (?:claim|repair|service)|claim (?:the |my )?warranty|\bunder warranty|extended warranty|"
            r"(?:screen|battery|glass|camera|port|speaker) (?:replacement|repair)|"
            r"维修|修理|返修|寄修|送修|(?:能|去哪|要|怎么|帮我)修|修一下|修好|换屏|换电池|售后网点|维修点|保修(?!期多|政策)"
        ),
        0.85,
        unless=_rx(
            r"\bhow long is the warranty|warranty (?:period|polic)|保修(?:多久|期多|政策|范围)|"
            # fixing what the order says is changing it: "fix the address on #W1"
            r"\bfix\w*\s+(?:the|my|this|that)\s+(?:shipping |delivery |billing )?(?:address|payment|order|details|"
            r"typo|spelling|name|zip|postcode|card)\b|"
            # the customer putting right what they said, or what the order says: "let me fix the size: it should
            # say M", "the order has a wrong address, let me fix it"
            r"\blet me (?:just )?(?:fix|correct)\b|\bfix\w*\b[^.?!]{0,30}\bshould (?:say|be|read)\b|"
            r"\b(?:wrong|incorrect)\s+(?:shipping |delivery )?(?:address|order|item|size|colou?r|option|details)\b"
            r"[^.?!]{0,40}\bfix|"
            # a story of a repair done, the reason an order is not needed: "we managed to repair the old one"
            r"\b(?:ended up|managed to|went and)\s+(?:fix|repair)\w*|\b(?:i|we)(?:'ve| have)?\s+(?:already\s+)?"
            r"(?:fixed|repaired)\s+(?:it|my|the)\b(?![^.?!]{0,40}\b(?:but|still|again|broke)\b)|"
            r"(?:旧的|旧手机|原来的|自己|已经)[^，。？！,.?!]{0,6}修好了"
        ),
    ),
    _Rule(
        Intent.RETURN,
        _rx(
            r"\b(?:refund\w*|money back|reimburs\w*|compensat\w*|send (?:it|this|them|the \w+) back|"
            r"give (?:it|them) back|(?:give|send|hand) back (?:the|my|this|these|those)|"
            r"take (?:it|them) back)\b|\breturn(?:ing)? (?:it|this|that|them|the|my|an?|items?|products?|"
            r"something|some|purchases?|orders?|part|parts|one|two|both|all|these|those|everything)\b|^\s*return\b|"
            r"\b(?:a|start a|make a|process a) return\b|"
            r"退货|退款|退钱|退掉|退了|想退|要退|能退|可以退|申请退|办理退|退一下|给我退|退吗|把钱退|退回"
        ),
        0.85,
        # What pays or refunds the price difference of a change is part of that change, not a return; so is
        # the refund of the payment an order is moved off.
        unless=_rx(
            r"^(?!.*\breturn).*\b(?:refund|charge|pay)\w*\b.{0,30}\b(?:price )?difference\b|"
            r"^(?!.*退货).*(?:差价|补差)|"
            r"^(?!.*(?:\breturn|退货))(?=.*(?:" + _NEW_METHOD + r")).*(?:" + OLD_METHOD_REFUNDED + r")"
        ),
    ),
    _Rule(
        Intent.EXCHANGE,
        _rx(
            r"\b(?:exchange\w*|swap\w*|replacement|replace (?:it|my|the|this)|trade (?:it|this) for|"
            r"trade (?:the|my|this|that) (?!old\b)|"
            r"replaced (?:with|by|for))\b|"
            r"\b(?:for|to|into)\s+(?:the|a|an)\s+(?:[\w-]+\s+){0,4}(?:one|version|model|variant)\b|"
            r"\b(?:for|to|into)\s+one\s+(?:with|in)\b|\w\s*(?:-+>|[→⇒➔➜➡⟶⇨]|=+>)\s*\w|"
            # an option wanted in place of the one ordered: "in white instead of black", "the 4mm one instead"
            r"\b(?:in|to|be)\s+(?:[\w-]+\s+){0,3}(?:instead of|rather than)\s|"
            r"\b(?:the|a|an)\s+(?:[\w.-]+\s+){0,3}one,?\s+instead\b|\bin\s+(?:[\w.-]+\s+){1,3}instead\b|"
            r"\b(?:prefer|rather have|would rather get)\s+(?:the|a|an)\s+(?:[\w.-]+\s+){0,3}"
            r"(?:one|version|model|variant)\b|"
            r"\b(?:everything|all) else (?:the same|unchanged|as is)\b|"
            r"\bother (?:options?|specs?) (?:the same|unchanged)\b|"
            r"换货|换新|换一台|换台新|换个新|换一个新|调换|换(?:成|个|一个)\s*(?:黑|白|蓝|绿|紫|银|红|粉|金|别的|其他|颜色|\d|[A-Za-z])|"
            # a colour by its trade name: "换成浮光白", "换成曜石黑"
            r"换(?:成|为)[\u4e00-\u9fff]{1,3}?(?:黑|白|蓝|绿|紫|银|红|粉|金|灰|色)(?![\u4e00-\u9fff]{0,2}(?:地址|卡))|"
            r"(?:把|将)(?!.{0,12}(?:地址|支付|付款|电话|收件人|收货人)).{0,30}(?:换成|换为)"
        ),
        0.8,
        unless=_rx(
            r"\bexchange rate|\btrade-?in\b|"
            # a whole address may stand between: "send #W1 to 690 Broadway … Indianapolis IN 46226 instead of…"
            r"\b(?:deliver\w*|ship\w*|send|sent|address\w*|pay|paid|paying|card)\b.{0,100}"
            r"\b(?:instead of|rather than)\b"
        ),
    ),
    _Rule(
        Intent.INVOICE,
        _rx(r"\b(?:invoic\w*|receipts?|bills?|billing|fapiao|vat)\b|发票|开票|普票|专票|抬头|税号"),
        0.9,
        # "bill" as charging: "bill my card for the difference", "bill my visa"
        unless=_rx(
            r"\bbilling address\b|\bbill(?:ed)?\s+(?:or\s+refund|me|it|my|the\s+(?:difference|card))\b|"
            r"\bbill(?:ed)?\b.{0,40}\b(?:difference|(?:credit_card|gift_card|paypal)_\w+)"
        ),
    ),
    _Rule(
        Intent.CANCEL_ORDER,
        _rx(
            r"\bcancel\w*|\b(?:void|kill|scrap|drop) (?:that|the|my|this)? ?order|\bcall off\b|"
            r"\bchanged? my mind (?:about|on) (?:my|the|this|that) order|"
            r"\bstop (?:that|the|my|an|this) order\b|"
            r"\b(?:don'?t|do not) (?:ship|send) (?:it|that|the order|my order)\b|"
            r"\b(?:don'?t|do not|no longer) want (?:to pay for )?(?:the|my|this|that|an?) (?:\w+ )?order\b|"
            # an order undone in other words: "scrap #W1", "get rid of order #W1", "I no longer want #W1"
            r"\b(?:scrap|void|kill|drop|abort|withdraw|retract|undo|delete|revoke|back out of|get rid of|stop)\b"
            r"\W+(?:[\w']+\W+){0,3}?" + _ORDER + r"|"
            r"\b(?:don'?t|dont|do not|no longer)\s+(?:want|need)\s+(?:the\s+|my\s+|this\s+)?" + _ORDER + r"|"
            r"\b(?:don'?t|dont|do not)\s+(?:ship|send)\s+"
            + _ORDER
            + r"|"
            # put the other way round: "can #W1 be stopped before it ships?", "could my order get called off"
            + _ORDER
            + r"\W+(?:[\w']+\W+){0,2}?(?:be|get|been)\s+(?:stopped|halted|called off|scrapped|voided|"
            r"withdrawn|pulled)\b|"
            r"(?:订单|#\s*[A-Za-z]?\d{4,}).{0,12}(?:不要了|不想要了|不需要了|撤掉|作废|拦截|拦下|拦住|停掉|别发了)|"
            r"取消(?!订阅|关注|自动续费|收藏)|撤单|撤销(?!投诉|申诉)"
        ),
        0.85,
        unless=_rx(
            r"\bcancel\w*\b.{0,25}\b(?:account|acc?ount|profile|membership|subscription|user)\b|"
            r"\bcancell?ation of (?:my|the|an?) (?:\w+ )?(?:account|profile)"
        ),
    ),
    _Rule(
        Intent.MODIFY_ORDER,
        _rx(
            r"\b(?:shipping|delivery|home|new|wrong|default|another|different|old|my|the|an?|this|that|following|"
            r"correct|right|updated)\s+address\b|"
            r"\b(?:deliver\w*|ship\w*|sen[dt]|mail\w*|redirect\w*)\b.{0,20}\b(?:somewhere else|elsewhere|"
            r"(?:an)?other (?:place|address|location)|a different (?:place|address|location))\b|"
            r"\baddress\b.{0,15}\b(?:wrong|outdated|mistake|incorrect)|"
            r"\b(?:chang(?:e|ing)|modif(?:y|ying)|edit(?:ing)?|amend(?:ing)?|alter(?:ing)?|updat(?:e|ing))\b"
            r"(?! on\b)(?! about\b).{0,30}" + _ORDER + r"|"
            r"\b(?:ship|send|deliver|redirect|forward|mail|go|goes|going)\w*\b(?:\s+\S+){0,6}?\s+to\s+"
            r"(?:(?:suite|apt|apartment|unit|flat|#)\s*\w+,?\s+)?\d+\s+[A-Za-z]|"
            r"\b(?:add|remove|delete|include|adding|removing|deleting|including)\b.{0,20}\b(?:items?|something|"
            r"products?|articles?)\b|\bforg[eo]t\w* to (?:add|include)\b|"
            r"\b(?:add|remove|delete|take)\b.{0,25}\b(?:to|from|off|in|out of)\s+(?:my|the|this)\s+order\b|"
            r"\bship (?:it )?to (?:my|a) (?:new|different|other)|\bdeliver (?:it )?to my (?:office|work|new)|"
            r"\b(?:my|our|the) new (?:place|home|house|apartment|flat|location)\b|\b(?:i|we)(?:'ve| have)? (?:just )?"
            r"(?:moved|relocated)\b|"
            # a whole postal address, said about an order: where it should go
             + POSTAL_ADDRESS.pattern + r"|新家|搬家|搬到|改寄|改送到|改发到|"
            # a Chinese address after 寄到/送到/发到: where the order should go
            r"(?:寄|送|发)到.{0,12}?(?:省|市|区|县|路|街|号)|"
            r"地址|门牌|修改订单|改订单|订单.{0,4}(?:改|修改)|改.{0,6}(?:颜色|数量|型号|收件人|收货人|电话)|(?:收件人|收货人).{0,4}改"
        ),
        0.8,
        unless=_rx(r"\b(?:e-?mail|store|shop|ip|mac|web) address|门店地址|实体店|退货地址|维修点地址"),
    ),
    # An item turned into another version of itself: "change the camera into the 4K one", "please
    # make it the chair (black) -> one with a high back", "switch the mouse for a wireless version".
    _Rule(
        Intent.MODIFY_ORDER,
        _rx(
            r"\b(?:change|switch|swap|replace|make|turn|upgrade)\b.{0,120}?"
            r"(?:->|[→⇒➔➜➡⟶⇨]|\b(?:into|for|to)\s+(?:an?|the)\s+(?:[\w-]+\s+){0,6}?(?:one|version|variant|model|unit)\b|"
            r"\bso\s+(?:that\s+)?it(?:'s|\s+is|\s+becomes)\s+(?:an?|the)\s+(?:[\w-]+\s+){0,6}?"
            r"(?:one|version|variant|model|unit)\b|"
            r"\b(?:into|for|to)\s+(?:one|the\s+(?:one|version|variant))\s+(?:with|that|in)\b)"
        ),
        0.8,
        unless=_rx(r"\b(?:address|payment|email|password|account)\b"),
    ),
    # Options of an item said to be wrong, or changed with the rest kept: "I ordered the wrong size",
    # "Brand C for the brand, rest unchanged".
    _Rule(
        Intent.MODIFY_ORDER,
        _rx(
            r"\b(?:ordered|picked|chose|chosen|selected|bought|got) the wrong (?:options?|sizes?|colou?rs?|variants?|"
            r"versions?|models?)\b|\b(?:the )?(?:rest|everything else|(?:all )?(?:the )?other options)\s+"
            r"(?:unchanged|the same|as (?:it is|they are|is|before))\b|"
            r"选错了?(?:型号|颜色|尺码|尺寸|配置|规格|内存|容量|版本)|其他配置不变|"
            # "能改成512G的吗", "换成无线版": an item made into another version of itself
            r"(?:改|换)成.{1,12}?(?:的|版|款|色)"
        ),
        0.8,
        unless=_rx(r"\b(?:address|payment|email|password|account)\b"),
    ),
    # "I want to modify the Smart Thermostat", "please change Skateboard …": something of an order, unless
    # it is the account's.
    _Rule(
        Intent.MODIFY_ORDER,
        _rx(
            r"\b(?:i|we)\s*(?:want|need|would like|'d like|wish) to (?:modify|change|alter|update|amend)\s+"
            r"(?:the|my)\b|"
            r"(?:\b(?:please|pls|plz|kindly)|\b(?:can|could|would|may) (?:you|u|i|we)|"
            r"\b(?:possible|able) to|\bwhether (?:i|we|you) (?:could|can))\s+(?:please\s+|still\s+|just\s+)?"
            r"(?:modify|change|alter|amend|update|edit)\s+(?:the\s+|my\s+)?[a-z]|"
            # what an item should become: "I'd like the Espresso Machine (mine's 1L) to be something in 2L"
            r"\b(?:i'?d like|i would like|i want|i need)\s+(?:the|my)\s+[^.?!]{1,80}?\bto be\b"
        ),
        # above the spec words an item change names its options with ("screen size", "resolution")
        0.82,
        unless=_rx(
            r"\b(?:password|account|profile|e-?mail|phone|name|username|subscription|plan|mind|settings?|language|"
            r"user|details|info|information|personal)\b|"
            r"\b(?:modify|change|alter|amend|update|edit)\s+(?:the\s+|my\s+)?(?:battery|screen|app)\b"
        ),
    ),
    # --- business words -----------------------------------------------------------------------------------------
    _Rule(
        Intent.LOGISTICS_QUERY,
        _rx(
            r"\b(?:track\w*|shipped|dispatch\w*|courier|parcel|package|shipment|in transit|out for delivery|eta|"
            r"delivery (?:time|period|date|status|progress)|shipping (?:time|period|status))\b|"
            r"\bwhen (?:will|does|do|is|can|would)\b.{0,40}\b(?:arriv\w*|ship|get here|be delivered|come|reach)\b|"
            r"\bhow (?:long|many days|soon)\b.{0,40}\b(?:deliver\w*|ship\w*|arriv\w*|get here|take to)\b|"
            r"\bhas (?:it|my \w+) (?:been )?(?:shipped|sent|dispatched)|\bwhere(?:'s| is| are)\b.{0,15}"
            r"\b(?:order|package|parcel|stuff|phone|item|delivery|earbuds|tablet)\b|"
            r"物流|快递(?!员态度)|发货|到哪|几天(?:能)?到|多久(?:能)?(?:到|收到)|什么时候(?:能)?(?:到|送|收到)|送到|派送|"
            r"签收|运单|(?<!订)单号|揽件|配送(?:时间|多久|要)|运输中|包裹"
        ),
        0.85,
        unless=_rx(r"退货地址|退货运单|快递方式|配送方式|发货地址|\btrack\w* (?:the |my )?refund"),
    ),
    _Rule(
        Intent.ORDER_QUERY,
        _rx(
            r"\border (?:status|details|history|info\w*)\b|\bstatus of (?:my|the|an|this) order|\bpurchase history|"
            r"\bany (?:updates?|news|word) (?:on|about|for|regarding)\b|"
            r"\b(?:check|look up|pull up|find)\b.{0,6}\bmy (?:recent |last )?orders?\b|"
            r"\border\b.{0,20}\b(?:processed|confirmed|pending|go through|went through|paid|processing)\b|"
            r"\bhow much did i pay\b|"
            r"订单(?:状态|详情|信息|记录)|查(?:一下|下|询)?(?:我的)?订单|购买记录|"
            r"订单.{0,6}(?:成功|确认|处理中|待处理|有效|付款|支付)|(?:订单|单子).{0,4}(?:怎么样|什么情况|情况)"
        ),
        0.8,
    ),
    _Rule(
        Intent.INVENTORY_CHECK,
        _rx(
            r"\b(?:in stock|out of stock|back in stock|restock\w*|sold out|stock|pre-?order|discontinued|"
            r"unavailable|availability)\b|\b(?:is|are) (?:the |it |there )?.{0,25}\bavailable\b|"
            r"有货|现货|库存|补货|缺货|断货|到货|卖完|无货|停产|下架|有没有货|还有吗|还能买|还有没有|单卖|有卖"
        ),
        0.8,
        unless=_rx(r"customer service|support|agent|someone|客服|\bsame-?day"),
    ),
    _Rule(
        Intent.PRICE_QUERY,
        _rx(
            r"\b(?:price\w*|pricing|costs?|how much|cheap\w*|discount\w*|coupons?|promo\w*|deals?|subsid\w*|"
            r"trade-?in|on sale|sale)\b|"
            r"多少钱|价格|价钱|什么价|价位|优惠|便宜|折扣|国补(?:后|完)?(?:多少|价|能|便宜|省)|补贴|以旧换新|到手价|降价|"
            r"差价|满减|券|贵不贵|贵吗|贵多少|运费多少|多少米|回收.{0,4}多少"
        ),
        0.8,
        unless=_rx(r"\bhow much did i pay\b|\bcost of living\b"),
    ),
    _Rule(
        Intent.PRODUCT_COMPARE,
        _rx(
            r"\b(?:compar\w*|difference|differences|differ|vs\.?|versus|better than|worse than|side by side)\b|"
            r"对比|比较|区别|差别|差异|相比|不一样|有啥不同|有什么不同|比.{1,8}(?:好|强|差|贵|值)|和.{1,12}哪个|跟.{1,12}哪个"
        ),
        0.8,
        # The price difference of a change, and what pays it, is no comparison: "difference on my gift card".
        unless=_rx(
            r"\bdifference\s+(?:on|via|to|with|onto|using|through|by|from)\b|"
            r"\b(?:pay|charge|refund|bill|settle|cover|put)\w*\b.{0,20}\bdifference\b|"
            r"\bdifference\b.{0,40}\b(?:credit_card|gift_card|paypal)_\w+|"
            r"\b(?:credit_card|gift_card|paypal)_\w+.{0,40}\bdifference\b|补差价|退差价"
        ),
    ),
    _Rule(
        Intent.PARAMS_QUERY,
        _rx(
            r"\b(?:specs?|specifications?|battery (?:capacity|life|size)|screen size|refresh rate|processor|chipset|"
            r"ram|megapixels?|waterproof|water resistant|ip ?\d\d|ip rating|resolution|weight|dimensions|how heavy|"
            r"5g|nfc|bluetooth version|wireless charging|fast charging|charging (?:speed|wattage|power)|wattage|"
            r"headphone jack|esim|dual sim|optical zoom|noise cancell?ation|what'?s in the box)\b|"
            r"参数|配置|电池(?:多大|容量)|屏幕(?:多大|尺寸)|刷新率|处理器|芯片|(?:运行)?内存多少|像素|防水|重量|多重|尺寸|"
            r"分辨率|续航|快充|无线充|nfc|蓝牙版本|双卡|esim|耳机孔|降噪吗|变焦|几瓦|多少瓦|什么系统"
        ),
        0.8,
    ),
    _Rule(
        Intent.PRODUCT_RECOMMEND,
        _rx(
            r"\b(?:recommend\w*|which (?:phone|one|tablet|earbuds?|earphones?|model|charger|case) (?:should|would|do)|"
            r"what should i (?:get|buy|choose)|help me (?:choose|pick|decide|select)|best selling|most popular)\b|"
            r"推荐|建议买|选哪|买哪|哪款(?:好|性价比|适合)|适合.{0,8}(?:手机|平板|耳机)|有什么好(?:用)?的|挑一|怎么选(?!购)"
        ),
        0.8,
    ),
    # --- chitchat (whole clause only) -----------------------------------------------------------------------------
    # (handled by standalone_chitchat; kept out of the list so that it only matches a whole clause)
    # --- knowledge -------------------------------------------------------------------------------------------------
    _Rule(
        Intent.FAULT_DIAGNOSIS,
        _rx(
            r"\bpayments? (?:issue|problem|error|fail\w*|trouble|declined|not going through)s?|"
            r"\b(?:issues?|problems?|errors?|troubles?) (?:with|when|while|during) (?:the |my )?"
            r"(?:payment|paying|checkout|registration|registering|signing up|sign-?up|card)|"
            r"\b(?:can'?t|cannot|unable to|couldn'?t|won'?t let me) (?:pay|register|sign up|log ?in|check ?out|"
            r"complete (?:the )?payment)\b|\bdeclined|\bcharged twice|\bdouble charged|"
            r"\bwon'?t (?:charge|turn on|connect|work|boot|pair|load)|\bnot (?:charging|working|responding|connecting|"
            r"turning on)|\bdoesn'?t (?:work|charge|connect|respond)|\bstopped working|\bkeeps? (?:crashing|restarting|"
            r"freezing|dropping|disconnecting|rebooting|flickering)|\bcrash\w*|\bflicker\w*|\boverheat\w*|\blaggy\b|"
            r"\b(?:registration|sign-?up|signup|log-?in|login) (?:problem|issue|error|fail\w*|trouble)s?|"
            r"\b(?:help|assistance|support|problems?|issues?|errors?|questions?|troubles?)\b.{0,25}"
            r"\b(?:registration|re+gistration|sign-?up|signup)\b|"
            r"\b(?:issue|problem|trouble|error)s? (?:registering|signing up)|"
            r"\bverification code|\bboot loop|\bno sound\b|\bdead pixel|"
            r"(?:支付|付款|付钱)(?:失败|不了|不成功|报错|异常|一直)|付不了|扣款.{0,6}(?:没|未)|扣了钱|重复扣|"
            r"注册(?:不了|失败|不上|报错|提示)|验证码|登录不上|登不上|登录失败|充不进|充不上|充电(?:特别|很)?慢|开不了机|"
            r"黑屏|闪退|死机|自动重启|一直重启|卡顿|很卡|变卡|连不上|断连|老断|没声音|失灵|发烫|发热|花屏|绿线|闪屏|不亮|"
            r"识别不了|信号(?:很)?差|掉电|乱点|听不到|坏点|亮点|漏光"
        ),
        0.8,
    ),
    _Rule(
        Intent.USAGE_TUTORIAL,
        _rx(
            r"\b(?:creat\w*|open\w*|regist\w*|set(?:ting)? up|mak\w*|sign(?:ing)? up for|new|delet\w*|clos\w*|remov\w*|"
            r"deactivat\w*|cancel\w*|terminat\w*|edit\w*|updat\w*|chang\w*|modif\w*|switch\w*|another|different|"
            r"other|second\w*)\b.{0,20}\b(?:acc?o\w{1,3}t?s?|profiles?|users?)\b|"
            r"\b(?:this|the) (?:user|profile|account)\b.{0,40}\b(?:new|other|another) one\b|"
            r"\baccounts? (?:creation|deletion|removal|settings|registration)|\b(?:switch|change) users?\b|"
            r"\b(?:passwords?|pwd|pin(?: code)?|passcode|access keys?|login credentials|username)\b|"
            r"\b(?:forg[eo]t\w*|lost|reset|restore|recover\w*|retriev\w*|remember)\b.{0,25}\b(?:pass|key|keys|pin)\b|"
            r"\b(?:pass|key|pin) (?:retrieval|recovery|reset)|\b(?:user|account|profile) (?:data|details|info\w*)\b|"
            r"\bdetails on my (?:\w+ )?account|\bswitch\w*\b.{0,15}\b(?:users?|accounts?|profiles?)\b|"
            r"\bregist(?:er|ering)\b|\b(?:not|don'?t) have an? (?:online |user )?account|"
            r"\bbuy(?:ing)? (?:an? |some |several |a few )?(?:items?|products?|things?)\b|"
            r"\bpersonal (?:info\w*|details|data)|\b(?:place|make|placing|making) (?:an? |the )?(?:order|purchase)|"
            r"\b(?:buy|purchase) (?:some|several|a few|a couple|items?|products?|something|stuff)|"
            r"\bi (?:want|need|would like|'d like) to (?:buy|purchase|order)\b|\bsign up\b|\bregister\b|"
            r"\bhow (?:do|can|to|should) (?:i |you )?(?:use|set ?up|turn on|turn off|enable|disable|pair|connect|take|"
            r"transfer|back ?up|move|install|update|activate|apply|log ?out|log ?in)\b|"
            r"注册|注销|账号|账户|密码|登录|登陆|切换|怎么下单|怎么购买|怎么买|如何下单|下单流程|"
            r"(?:怎么|如何|怎样)(?:设置|调节|调整|安装|用|使用|开启|打开|关闭|连接|配对|截屏|截图|录屏|备份|导入|导数据|升级|绑定|解绑|"
            r"改绑|修改|更换|换头像|领取|领)|教程|教我|个人信息|昵称|头像"
        ),
        0.75,
    ),
    _Rule(
        Intent.POLICY_INQUIRY,
        _rx(r"\bpolic(?:y|ies)\b|\bwarranty\b|政策|规则|七天无理由|保修期|价保"),
        0.75,
    ),
    _Rule(
        Intent.FAQ,
        _rx(
            r"\bpayment (?:methods?|options?|types?)|\bways to pay\b|"
            r"\bpay (?:with|by|via|using) (?:alipay|wechat|paypal|"
            r"credit|debit|card|cash|apple pay|installments?)|\baccept\w*\b.{0,25}\b(?:cards?|paypal|alipay|wechat|"
            r"cash|payments?)|\binstall?ments?\b|"
            r"\b(?:cu\w*omer (?:serv\w*|supp\w*|care|ass?ist\w*)|support team|help ?desk|call center)\b|"
            r"\b(?:phone|contact|hotline) number\b|\b(?:opening|business|store|office|working) hours\b|"
            r"\bwhat time do you\b|"
            r"\b(?:reviews?|feedback|rate (?:my|your|the|a)|rating|testimonial)\b|\bphysical stores?|\bstore address|"
            r"\bcontact (?:you|your company|the store)\b|"
            r"付款方式|支付方式|花呗|信用卡|分期|微信支付|支付宝|云闪付|数字人民币|货到付款|客服电话|官方电话|售后电话|联系客服|"
            r"怎么联系|营业时间|门店|实体店|线下店|评价|反馈|建议|晒单|打分|客服(?:邮箱|几点|上班|周末|工作时间)"
        ),
        0.8,
        unless=_rx(r"\b(?:credit_card|gift_card|paypal)_\w+"),
    ),
]


def keyword_intents(text: str) -> list[tuple[Intent, float]]:
    """Intents whose priority keyword rules fire on `text`, highest priority first, each once.

    Priority: offensive language (-> EMOTION_SENSITIVE) > ticket words (return, refund, exchange, repair,
    invoice, cancel, modify, complaint, human) > business words (logistics, order, stock, price, compare,
    specs, recommend) > chitchat (whole clause) > knowledge (fault, how-to, policy, faq). A few specific
    phrases override the tiers ("refund policy" is a policy question, "track my refund" an order query).
    """
    found: list[tuple[Intent, float]] = []
    seen: set[Intent] = set()

    def add(intent: Intent, confidence: float) -> None:
        if intent not in seen:
            seen.add(intent)
            found.append((intent, confidence))

    if is_offensive(text):
        add(Intent.EMOTION_SENSITIVE, 0.9)
    chitchat_done = False
    for rule in _RULES:
        if rule.intent in (Intent.FAULT_DIAGNOSIS,) and not chitchat_done:
            chitchat_done = True
            if not found and standalone_chitchat(text):
                add(Intent.CHITCHAT, 0.85)
        if rule.intent in seen:
            continue
        if rule.pattern.search(text) and not (rule.unless and rule.unless.search(text)):
            add(rule.intent, rule.confidence)
    return found
