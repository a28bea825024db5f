"""Wording banks of the scripted τ-bench customer (bench/taubench_retail.py): two disjoint sets.

Sets A and C are for development (C was written later, to catch fixes that only fit A); set B is
held out: report it, never tune the engine on it. No template
appears in both sets (`check_disjoint`). Every list is `str.format` templates; the customer picks one
whose placeholders it can fill. Placeholders:

    {order} "#W6067464"   {order_bare} "W6067464"   {items} the items, with or without options
    {changes} each item with its target   {pm} a payment method   {reason} a cancel reason clause
    {address} an address in prose   {email} {first} {last} {zip}   {request} a whole request
    {first} / {second} / {second_lc} two requests in one message   {what} {right} {wrong} a correction

Item and target fragments: {name} product name, {named} "size: M, color: black", {values} "M black",
{new_named}/{new_values} only the changed options, {full_named}/{full_values} every option of the
target, {kept} the names of the options that stay.
"""

from __future__ import annotations

from dataclasses import dataclass, fields


@dataclass(frozen=True)
class Wordings:
    name: str
    opening: dict[str, tuple[str, ...]]  # request kind -> first message
    answer: dict[str, tuple[str, ...]]  # awaited slot (email split into email / name_zip; change per kind)
    yes: tuple[str, ...]
    no: tuple[str, ...]
    restate: tuple[str, ...]  # after a "no" or an ignored request: {request}
    combine: tuple[str, ...]  # two requests in one opening message
    follow_up: tuple[str, ...]  # the second of two combined requests, once the first is done
    correction: tuple[str, ...]  # the message right after a slightly wrong one
    reason: dict[str, tuple[str, ...]]  # τ-bench cancel reason -> clauses
    payment: tuple[str, ...]  # {id}, {kind}
    address: tuple[str, ...]  # {address1} {address2} {city} {state} {zip} {country}
    option: tuple[str, ...]  # one named option: {name} {value}
    item: tuple[str, ...]  # an item named with its current options
    change: tuple[str, ...]  # {item} {target}
    target_changed: tuple[str, ...]  # only the changed options, the rest not mentioned
    target_keep: tuple[str, ...]  # only the changed options, the rest said to stay
    target_full: tuple[str, ...]  # every option of the wanted item
    target_same: tuple[str, ...]  # a new item with exactly the same options (target {})
    option_joins: tuple[str, ...]  # between named options / between values
    list_joins: tuple[str, ...]  # between items / changes


A = Wordings(
    name="A",
    opening={
        "cancel": (
            "Please cancel order {order}, {reason}.",
            "Hi there, could you cancel {order} for me? Honestly, {reason}.",
            "I'd like to cancel an order, {reason}.",
            "need to cancel {order} pls, {reason}",
            "Cancel {order}. Reason: {reason}.",
            "Hello! I placed order {order} but {reason}, so I'd like to cancel it please.",
            "Can I still cancel my order? It's {order}, {reason}.",
            "I want to cancel one of my orders because {reason}.",
            "Hey, {order} needs cancelling, {reason}.",
        ),
        "return": (
            "I'd like to return the {items} from order {order}. Please refund {pm}.",
            "Hi, can I return some items from {order}? It's the {items}. Refund to {pm} please.",
            "need to return the {items} pls, order {order}, refund to {pm}",
            "I want to send back the {items}. The refund should go to {pm}.",
            "Return request for order {order}: {items}. Refund via {pm}.",
            "Hello! My order {order} arrived but I'd like to return the {items}. Could the money go back to {pm}?",
            "Could you help me return the {items}? Refund to {pm}, thanks.",
            "Please start a return on {order} for the {items}, and refund {pm}.",
            "I'd like to return something from order {order}.",
        ),
        "exchange": (
            "I'd like to exchange some items from my order {order}: {changes}. Any difference can go on {pm}.",
            "Hi! Could I exchange {changes}? It's order {order}, and please use {pm} for any price difference.",
            "need to exchange {changes} from {order}, use {pm}",
            "Hello, I received order {order} and I want to swap {changes}. Settle the difference with {pm}.",
            "Can you exchange {changes} for me? Use {pm} for the difference.",
            "I want to exchange the {items} from order {order}.",
            "Exchange please, order {order}: {changes}. Payment: {pm}.",
            "My delivered order {order} needs an exchange: {changes}. Use {pm} for the difference.",
        ),
        "modify_items": (
            "I'd like to change an item in my pending order {order}: {changes}. Use {pm} for the difference.",
            "Hi, my order {order} hasn't shipped yet. Could you change {changes}? Please use {pm}.",
            "need to modify order {order} before it ships: {changes}, pay with {pm}",
            "Can I still change the options on {order}? I want {changes}. Use {pm}.",
            "Please update {changes} in my order that hasn't shipped. Payment via {pm}.",
            "I want to modify the {items} in order {order}.",
            "Hello! Before my order {order} ships, I'd love to switch {changes}. Any difference on {pm} please.",
            "Could you update my pending order? {order}: {changes}; difference via {pm}.",
        ),
        "address": (
            "Please change the shipping address of order {order}. It should go to {address}.",
            "Hi, can you ship my order {order} to {address} instead?",
            "need to update the address on {order}, new address is {address}",
            "I moved recently. Could you send order {order} to {address}?",
            "I'd like to change the delivery address of my pending order to {address}.",
            "Could you update where {order} is going? The new address is {address}.",
            "Address change for {order}: {address}.",
            "Hello! My order {order} should be delivered to {address}, not the old address.",
        ),
        "payment": (
            "For order {order}, please change the payment method to {pm}.",
            "Hi, could I pay for {order} with {pm} instead?",
            "need to switch payment on {order} to {pm}",
            "I'd like to use {pm} for my pending order rather than what I paid with.",
            "Can you move the payment for order {order} over to {pm}?",
            "Please charge {pm} for {order} and refund the original payment.",
            "Hello! I want to change how I paid for order {order}: {pm} please.",
            "Payment change on {order}: use {pm}.",
        ),
    },
    answer={
        "email": (
            "{email}",
            "It's {email}.",
            "My email is {email}",
            "sure, {email}",
            "email: {email}",
            "You'll find me under {email}.",
            "The account email is {email}",
            "oh right, {email}",
        ),
        "name_zip": (
            "My name is {first} {last} and my zip code is {zip}.",
            "{first} {last}, zip {zip}",
            "I'm {first} {last}, zip code {zip}.",
            "Name: {first} {last}. Zip: {zip}.",
            "It's {first} {last}, {zip}",
            "sure, {first} {last}, and the zip is {zip}",
            "{first} {last} here, my zip is {zip}",
            "You can look me up as {first} {last}, {zip}.",
        ),
        "order_id": (
            "{order}",
            "It's {order}.",
            "order {order}",
            "The order number is {order}.",
            "sure, {order}",
            "I think it's {order}",
            "{order} is the one",
            "order number {order_bare}",
        ),
        "item_ids": (
            "{items}",
            "The {items}.",
            "It's the {items}.",
            "Just the {items}",
            "I mean the {items}.",
            "the {items} please",
            "Those would be: {items}",
            "items: {items}",
        ),
        "new_item_ids": (
            "{changes}",
            "Switch {changes}, please.",
            "I'd like {changes}.",
            "So: {changes}.",
            "What I want is {changes}.",
            "ok so {changes}",
            "Let's do {changes}.",
            "Please change {changes}.",
        ),
        "payment_method_id": (
            "{pm}",
            "Use {pm}.",
            "{pm}, please",
            "Please use {pm}",
            "Let's go with {pm}.",
            "put it on {pm}",
            "I'll use {pm}.",
            "With {pm}.",
        ),
        "reason": (
            "{reason}",
            "Because {reason}.",
            "It's because {reason}.",
            "Well, {reason}.",
            "{reason}, that's all",
            "Reason is simple: {reason}.",
            "honestly {reason}",
            "Just that {reason}.",
        ),
        "address": (
            "{address}",
            "The new address is {address}.",
            "Please send it to {address}.",
            "It should go to {address}.",
            "ship it to {address}",
            "New address: {address}",
            "It's {address}.",
            "Deliver to {address}, please.",
        ),
        "change_address": (
            "the address",
            "The shipping address.",
            "I want to change the delivery address.",
            "address please",
            "Where it ships to.",
            "the address it's going to",
            "Just the shipping address",
            "I need a different address on it",
        ),
        "change_payment": (
            "the payment method",
            "How I paid for it.",
            "I want to change the payment.",
            "payment please",
            "The card or account I paid with.",
            "the payment",
            "Just the payment method",
            "I need to pay with something else",
        ),
        "change_items": (
            "the items",
            "Some item options.",
            "I want to change an item.",
            "items please",
            "The options of an item.",
            "the products in it",
            "Just the items",
            "I need different options on something I ordered",
        ),
    },
    yes=(
        "yes",
        "Yes please.",
        "That's right, go ahead.",
        "Correct.",
        "yep, do it",
        "Sounds good, please proceed.",
        "Yes, that's correct.",
        "ok go ahead",
    ),
    no=(
        "no",
        "No, that's not it.",
        "No, that's not what I asked for.",
        "nope, that's wrong",
        "No, please don't do that.",
        "That's not right.",
        "Not quite, no.",
        "No, wrong one.",
    ),
    restate=(
        "Let me say it again. {request}",
        "To be clear: {request}",
        "What I need is this: {request}",
        "Let me rephrase. {request}",
    ),
    combine=(
        "{first} Also, {second_lc}",
        "{first} And one more thing: {second}",
        "Two things. {first} {second}",
    ),
    follow_up=(
        "Thanks! Now the other thing I mentioned. {request}",
        "Great. Next: {request}",
        "OK, and the second request: {request}",
    ),
    correction=(
        "Sorry, I meant {right}, not {wrong}.",
        "Oops, wrong {what}: it's {right}.",
        "Correction: the {what} should be {right}, not {wrong}.",
        "My bad, {right}, not {wrong}.",
    ),
    reason={
        "no longer needed": (
            "I no longer need it",
            "I don't need it anymore",
            "it's no longer needed",
            "we don't need it any more",
        ),
        "ordered by mistake": (
            "I ordered it by mistake",
            "I placed it by accident",
            "it was ordered by mistake",
            "I bought it by mistake",
        ),
    },
    payment=("{id}", "my {kind} {id}", "the {kind} {id}"),
    address=(
        "{address1}, {address2}, {city}, {state}, {zip}, {country}",
        "{address1} {address2}, {city}, {state} {zip}, {country}",
        "{address1}, {address2} in {city}, {state} {zip} ({country})",
        "{address2}, {address1}, {city} {state} {zip}, {country}",
        "{address1}, {address2}; that's in {city}, {state} {zip}, {country}",
    ),
    option=("{name}: {value}", "{value} {name}"),
    item=("{name} ({values})", "{name} in {named}"),
    change=("the {item} for {target}", "the {item} to {target}", "my {item} -> {target}"),
    target_changed=("the {new_values} one", "one with {new_named}", "{new_named}", "a {new_values} version"),
    target_keep=(
        "{new_named}, everything else the same",
        "the {new_values} one, other options unchanged",
        "one in {new_values}, keeping the same {kept}",
    ),
    target_full=("the {full_values} one", "one with {full_named}"),
    target_same=(
        "a brand-new one with exactly the same options",
        "the same model with the same options, just a replacement",
        "an identical new one",
    ),
    option_joins=(", ", " and "),
    list_joins=("; ", " and "),
)


B = Wordings(
    name="B",
    opening={
        "cancel": (
            "Good morning, I need order {order} cancelled as {reason}.",
            "Is it possible to cancel {order}? The thing is, {reason}.",
            "pls cancel order {order}, {reason}",
            "I'd like to cancel a pending order since {reason}.",
            "Hello, I want my order {order} cancelled; {reason}.",
            "Cancel request for {order}: {reason}.",
            "Hi! Please go ahead and cancel {order}. To be honest {reason}.",
            "Would you be able to cancel my recent order {order}? Basically {reason}.",
            "I have to cancel an order, {reason}. Can you help?",
        ),
        "return": (
            "I want to return the following from {order}: {items}. Refund it to {pm}.",
            "Hey, I'm returning the {items} from my order {order}, please put the refund on {pm}.",
            "Could you set up a return for the {items}? Order {order}. I'd like the refund on {pm}.",
            "return {items} from {order}, refund {pm} pls",
            "Hi, I'd like to return a few things I got: {items}. Please refund to {pm}.",
            "Order {order} was delivered, and I need to return the {items}; the refund can go to {pm}.",
            "Is it possible to return the {items}? Please send the refund to {pm}.",
            "Good afternoon, I wish to return the {items} from order {order} and get my money back on {pm}.",
            "Hello, I need to make a return on {order}.",
        ),
        "exchange": (
            "I want to exchange {changes} from order {order}, with {pm} covering any difference.",
            "Hey, I got my order {order} and need an exchange: {changes}. Please use {pm}.",
            "pls exchange {changes}, order {order}, difference on {pm}",
            "Hello, I'd like to swap {changes}. Any price difference on {pm} please.",
            "Would it be possible to exchange the {items}? They came in order {order}.",
            "Exchange request for {order}: {changes}; {pm} for the price difference.",
            "I'm hoping to exchange a few things from my last delivery: {changes}. Use {pm}.",
            "Good evening, for order {order} I would like to exchange {changes}. Settle any difference with {pm}.",
        ),
        "modify_items": (
            "I need to change {changes} on order {order}, it's still pending. Please use {pm}.",
            "Hey, order {order} hasn't shipped, right? I'd like to modify it: {changes}. Bill the difference to {pm}.",
            "pls modify {changes} in {order}, use {pm}",
            "Could I change the items in an order I just placed? I'd like {changes}. Use {pm} please.",
            "Is it too late to change my order {order}? If not, I want {changes}. Put any difference on {pm}.",
            "Hi, I'd like to make a change to the {items} in my order {order}.",
            "Modification for pending order {order}: {changes}. Use {pm} for any difference.",
            "I ordered the {items} but changed my mind on the options. Could you switch {changes}? "
            "It's order {order}, {pm} for the difference.",
            "I'd like to swap {changes} before my order ships. Use {pm}.",
        ),
        "address": (
            "I want to change the shipping address for order {order} to {address}.",
            "Hey, please ship {order} to {address} instead of the current address.",
            "pls send {order} to {address}",
            "Could you redirect my order to a new address? It's {address}.",
            "Hi, I need order {order} to go to a different address: {address}.",
            "The address on {order} is wrong. Please deliver it to {address}.",
            "Good afternoon, can I update the shipping address of {order}? Please use {address}.",
            "I'd like my pending order delivered somewhere else, namely {address}.",
        ),
        "payment": (
            "I want to pay for order {order} using {pm} instead.",
            "Hey, can you change the payment method on {order}? Use {pm}.",
            "pls change payment for {order} to {pm}",
            "Could I switch the payment of my pending order to {pm}?",
            "Hi, I'd rather have order {order} paid with {pm}.",
            "Is it possible to update the payment on {order}? I'd like {pm} to be used.",
            "Good morning, please swap the payment for {order} to {pm}.",
            "I need to change my payment method for an order that hasn't shipped, to {pm}.",
        ),
    },
    answer={
        "email": (
            "{email} is my email",
            "Sure thing, it's {email}.",
            "my account is under {email}",
            "Email address: {email}",
            "Here you go: {email}",
            "I use {email} for my account.",
            "{email}, thanks",
            "Yes, it's registered to {email}.",
        ),
        "name_zip": (
            "{first} {last}, zip code {zip}.",
            "I am {first} {last} and I live in zip {zip}.",
            "Name's {first} {last}; zip {zip}",
            "{first} {last}, {zip}",
            "It's {first} {last}. My zip code is {zip}.",
            "first name {first}, last name {last}, zip {zip}",
            "This is {first} {last}, postal code {zip}.",
            "Sure: {first} {last}, {zip}.",
        ),
        "order_id": (
            "That's {order}",
            "Order {order}, thanks.",
            "it's order {order}",
            "{order} please",
            "The one I mean is {order}.",
            "My order id is {order}.",
            "Here: {order}",
            "it's {order_bare}",
        ),
        "item_ids": (
            "{items}, please",
            "Only the {items}.",
            "That would be the {items}.",
            "the {items} from that order",
            "I'm talking about the {items}.",
            "These: {items}",
            "The items are: {items}.",
            "It'd be the {items}",
        ),
        "new_item_ids": (
            "{changes}, thanks",
            "I'm after {changes}.",
            "Basically {changes}.",
            "Sure, {changes}.",
            "The new options: {changes}.",
            "Swap {changes} please",
            "I want {changes}.",
            "Could you do {changes}?",
        ),
        "payment_method_id": (
            "{pm} works",
            "Go with {pm}.",
            "Use {pm} for that.",
            "pay with {pm}",
            "{pm} is fine",
            "I'd like to use {pm}.",
            "Let's use {pm} please",
            "Via {pm}.",
        ),
        "reason": (
            "{reason}.",
            "The reason is that {reason}.",
            "Oh, {reason}.",
            "Mainly because {reason}.",
            "{reason}, unfortunately",
            "Simply put, {reason}.",
            "To be honest, {reason}.",
            "Basically, {reason}.",
        ),
        "address": (
            "{address}, please",
            "Send it to {address} instead.",
            "the address is {address}",
            "Use {address}.",
            "Please use this one: {address}",
            "Ship to {address}.",
            "I'd like it delivered to {address}.",
            "That'd be {address}.",
        ),
        "change_address": (
            "Shipping address, please.",
            "the delivery address",
            "It's the address I want to change.",
            "address",
            "I'd like to update where it's delivered.",
            "Only the address.",
            "The address it ships to",
            "The shipping address, thanks",
        ),
        "change_payment": (
            "Payment method, please.",
            "the way I paid",
            "It's the payment I want to change.",
            "payment",
            "I'd like to switch how I pay.",
            "Only the payment method.",
            "the payment method on the order",
            "Payment, thanks",
        ),
        "change_items": (
            "Items, please.",
            "the item options",
            "It's an item I want to change.",
            "items",
            "I'd like to change what I ordered.",
            "Only the items.",
            "the product options",
            "An item, thanks",
        ),
    },
    yes=(
        "Yes, go ahead.",
        "yeah that's right",
        "Correct, please do.",
        "Sure, proceed.",
        "Yes, that's it.",
        "Perfect, go for it.",
        "y",
        "That's all correct, yes.",
    ),
    no=(
        "No, that's wrong.",
        "nope",
        "No, please don't.",
        "That isn't what I wanted.",
        "No, that's not correct.",
        "Hmm, no, that's not right.",
        "Wait, no, that's not it.",
        "Incorrect, no.",
    ),
    restate=(
        "Once more: {request}",
        "I'll try again. {request}",
        "Sorry if I wasn't clear. {request}",
        "Just to clarify: {request}",
    ),
    combine=(
        "{first} Plus, {second_lc}",
        "Couple of requests. First: {first} Second: {second}",
        "{first} Oh, and {second_lc}",
    ),
    follow_up=(
        "Cheers. Moving on: {request}",
        "Now for my other request. {request}",
        "Thank you. One more: {request}",
    ),
    correction=(
        "Sorry, my mistake: {right} rather than {wrong}.",
        "Wait, I got the {what} wrong. It's {right}.",
        "Let me correct that, the {what} is {right} and not {wrong}.",
        "Ugh, sorry, I meant {right}.",
    ),
    reason={
        "no longer needed": (
            "I won't be needing it anymore",
            "it's not needed any longer",
            "I really have no need for it now",
            "I changed my mind and no longer need it",
        ),
        "ordered by mistake": (
            "the order was a mistake",
            "I hit order by accident",
            "I purchased it by mistake",
            "it was placed by mistake",
        ),
    },
    payment=("my {kind} ({id})", "{id} (my {kind})", "{kind} {id}"),
    address=(
        "{address1}, {address2}, {city}, {state} {zip}, {country}",
        "{address1} ({address2}), {city} {state}, zip {zip}, {country}",
        "{address1}, {address2}, {city}, {state}, {country}, zip code {zip}",
        "{address1}, {address2} in {city} {state} {zip}, {country}",
        "{address2} at {address1}, {city}, {state} {zip} {country}",
    ),
    option=("{name} {value}", "{name} - {value}"),
    item=("{values} {name}", "{name} with {named}"),
    change=("the {item} for {target} instead", "my {item}, I'd like {target}", "the {item}, make it {target}"),
    target_changed=("a {new_values} one", "the version with {new_named}", "{new_values}", "one that has {new_named}"),
    target_keep=(
        "same {kept}, just in {new_values}",
        "a {new_values} one (keep the rest as is)",
        "{new_named}, leave the {kept} as it is",
    ),
    target_full=("a {full_values} one", "{full_named}"),
    target_same=(
        "a fresh one, same options as before",
        "exactly the same item again, just a new unit",
        "a replacement with identical options",
    ),
    option_joins=(" / ", ", "),
    list_joins=(", and ", "; plus "),
)


# A second development set, written later than A and without reading B: other customers' styles
# (terse, chatty, labelled fields, details in a different order), so a fix that only fits A shows.
C = Wordings(
    name="C",
    opening={
        "cancel": (
            "hi i need {order} cancelled, {reason}",
            "Good morning. I would like to request the cancellation of order {order}, as {reason}.",
            "Is it too late to cancel? Order {order}. {reason}, sorry.",
            "{order} - please cancel, {reason}.",
            "Could you kill order {order}? {reason}.",
            "I'd rather not receive {order} anymore, {reason}. Can you cancel it?",
            "Cancellation please. {reason}.",
            "Yo, scrap my order {order} - {reason}.",
        ),
        "return": (
            "I'm sending back the {items} (order {order}). Put the money back on {pm}.",
            "return for {order}: {items}, refund {pm}",
            "Hello, the {items} from {order} didn't work out for me. I'd like a refund to {pm}.",
            "I want my money back for the {items}, to {pm} please. Order {order}.",
            "Could I get a refund on the {items}? The order was {order}, and {pm} is fine for the refund.",
            "Order {order} arrived. I'd like to return the {items}, refunded to {pm}.",
            "Please process a return of the {items} and refund it to {pm}.",
            "I have something to return from order {order}.",
        ),
        "exchange": (
            "I got order {order} and I'd like to swap the item: {changes}. Charge or refund the difference to {pm}.",
            "exchange on {order}: {changes}, {pm} for the difference",
            "Could you replace {changes}? Order {order}. {pm} for any difference.",
            "Hi, I'd like {changes} instead - the order is {order}. Use {pm} if the price differs.",
            "The {items} from {order} isn't right for me, I'd like to exchange it.",
            "Please exchange {changes}; bill {pm} for any price difference.",
            "I received my order {order}. Can I trade {changes}? {pm} works for the difference.",
            "Exchange request, order {order}: {changes}. Difference on {pm}.",
        ),
        "modify_items": (
            "My order {order} is still pending, right? I'd like to change {changes}. {pm} for the difference.",
            "pending order {order}: change {changes}, charge {pm}",
            "Before {order} goes out, can you switch {changes}? Difference on {pm}, please.",
            "I ordered the wrong option. In {order}, please make it {changes}; use {pm}.",
            "Could you edit my order {order}? I want {changes}, paid with {pm}.",
            "Hi, I'd like to change the {items} in my order {order}, it hasn't shipped.",
            "Please change {changes} on my unshipped order and use {pm}.",
            "Order {order} - not shipped yet - change {changes}, difference via {pm}.",
        ),
        "address": (
            "My order {order} needs to go to a new address: {address}.",
            "new shipping address for {order}: {address}",
            "Could you redirect order {order}? Please deliver it to {address} instead.",
            "I gave the wrong address for {order}. The correct one is {address}.",
            "Please ship {order} to this address: {address}",
            "Hi, I've moved. Can my pending order {order} be delivered to {address}?",
            "Can you change where my order goes? New address: {address}.",
            "Update the delivery address on {order} to {address} please.",
        ),
        "payment": (
            "Can I change the card on {order}? I'd like to use {pm}.",
            "payment for {order} -> {pm}",
            "I'd like to pay for order {order} with {pm} rather than my current method.",
            "Please switch the payment of {order} to {pm}.",
            "Could {order} be charged to {pm} instead?",
            "I want to use a different payment method for {order}: {pm}.",
            "Hi, for my pending order I'd like {pm} to be the payment method.",
            "Order {order}: change payment method to {pm}, thanks.",
        ),
    },
    answer={
        "email": (
            "{email} is my email address",
            "it's {email}",
            "Email address is {email}",
            "{email}, that's the one on the account",
            "Sure - {email}.",
            "try {email}",
            "I use {email}.",
            "my email address is {email}",
        ),
        "name_zip": (
            "{first} {last}, zip is {zip}",
            "I'm {first} {last} and I live in zip {zip}.",
            "Name {first} {last}, zip code {zip}",
            "{last}, {first} - zip {zip}",
            "It's {first} {last}. Zip is {zip}.",
            "{first} {last} ({zip})",
            "My name's {first} {last}, postcode {zip}.",
            "first name {first}, surname {last}, zip {zip}",
        ),
        "order_id": (
            "It is {order}",
            "{order_bare}",
            "the order is {order}",
            "Order number: {order}",
            "That'd be {order}.",
            "{order}, I believe",
            "Order ID {order}",
            "this one: {order}",
        ),
        "item_ids": (
            "the {items}",
            "Only the {items}, thanks.",
            "It's about the {items}",
            "{items}, please.",
            "Just these: {items}",
            "The ones I mean are the {items}.",
            "the {items}, nothing else",
            "I'm talking about the {items} here.",
        ),
        "new_item_ids": (
            "I want {changes}",
            "Make it {changes}.",
            "{changes}, please",
            "Change {changes}.",
            "I'd prefer {changes}.",
            "What I'd like is {changes}.",
            "ok - {changes}",
            "Please do {changes}.",
        ),
        "payment_method_id": (
            "use {pm}",
            "Go with {pm} then.",
            "{pm} please",
            "Put it on {pm}.",
            "Charge {pm}.",
            "I'd like to use {pm} for it.",
            "Let's use {pm}",
            "{pm} is fine by me",
        ),
        "reason": (
            "{reason}, basically.",
            "Simply put: {reason}.",
            "well {reason}",
            "The reason: {reason}.",
            "Because {reason}, really.",
            "{reason}, to be honest",
            "Mainly that {reason}.",
            "oh, {reason}",
        ),
        "address": (
            "here you go: {address}",
            "Send it here: {address}",
            "The address is {address}",
            "{address}, please and thanks",
            "OK, it's {address}.",
            "Deliver it to {address}",
            "new address - {address}",
            "Please use {address}.",
        ),
        "change_address": (
            "Shipping address.",
            "the delivery address please",
            "I want it delivered somewhere else.",
            "The address it ships to, please",
            "change the address",
            "Where it gets delivered",
            "the address on the order",
            "It needs to go to a different address.",
        ),
        "change_payment": (
            "The payment.",
            "how it's paid",
            "I'd like to pay with a different method.",
            "The payment method, please",
            "change the payment",
            "what it's charged to",
            "the card it's on",
            "I want to pay another way.",
        ),
        "change_items": (
            "An item.",
            "the item options please",
            "I want a different version of one of the items.",
            "The products, please",
            "change an item",
            "what's in the order",
            "the stuff I ordered",
            "One of the items needs different options.",
        ),
    },
    yes=(
        "Yes.",
        "yes please do",
        "Go ahead.",
        "Confirmed.",
        "That's correct, yes.",
        "sure, proceed",
        "Yes, please go ahead with that.",
        "right, do it",
    ),
    no=(
        "No.",
        "no, don't",
        "That's wrong.",
        "No, that isn't what I want.",
        "nope, not that one",
        "No, please stop.",
        "That's not correct.",
        "no, not that",
    ),
    restate=(
        "Once more, then: {request}",
        "I'll repeat it. {request}",
        "Sorry if I was unclear. {request}",
        "Again: {request}",
    ),
    combine=(
        "{first} Plus: {second_lc}",
        "{first} I also need this: {second}",
        "Hi, two requests. First: {first} Second: {second}",
    ),
    follow_up=(
        "Thank you. And the other request: {request}",
        "Perfect. Now: {request}",
        "Thanks. The second thing: {request}",
    ),
    correction=(
        "Wait, I meant {right}, not {wrong}.",
        "Sorry, the {what} is {right}.",
        "Actually it's {right} rather than {wrong}.",
        "Let me correct that: {right}, not {wrong}.",
    ),
    reason={
        "no longer needed": (
            "I really don't need it anymore",
            "I no longer have any use for it",
            "it's not needed anymore",
            "I changed my mind and don't need it",
        ),
        "ordered by mistake": (
            "I ordered it by accident",
            "it was a mistake to order it",
            "I didn't mean to order it",
            "I made the order by mistake",
        ),
    },
    payment=("{id}, my {kind}", "the {kind} ({id})", "my {kind}, {id}"),
    address=(
        "{address1} {address2} {city} {state} {zip} {country}",
        "{address1}, {address2}, {city} {state} {zip}, {country}",
        "street: {address1}, {address2}; city: {city}; state: {state}; zip: {zip}; country: {country}",
        "{address1} ({address2}), {city}, {state}, {zip}, {country}",
        "{address1}, {address2}, {city}, {state} {zip} {country}",
    ),
    option=("{value} for the {name}", "{value} ({name})"),
    item=("{name} ({named})", "{name}, the {values} one"),
    change=("the {item} into {target}", "{item} -> {target}", "the {item}, I want {target} instead"),
    target_changed=(
        "the one with {new_named}",
        "a {new_values} unit",
        "{new_values} instead",
        "the variant with {new_named}",
    ),
    target_keep=(
        "{new_named}, rest unchanged",
        "a {new_values} one, all other options as they are",
        "{new_values} but keep the {kept}",
    ),
    target_full=("one that is {full_named}", "a {full_values} version"),
    target_same=(
        "the exact same item again, a fresh unit",
        "an identical replacement with the same options",
        "the same one, brand new",
    ),
    option_joins=(", ", " & "),
    list_joins=(", and ", "; also "),
)

SETS: dict[str, Wordings] = {"A": A, "B": B, "C": C}


def _templates(w: Wordings) -> set[str]:
    out: set[str] = set()
    for f in fields(w):
        value = getattr(w, f.name)
        if f.name in ("name", "option_joins", "list_joins"):
            continue
        groups = value.values() if isinstance(value, dict) else [value]
        for group in groups:
            out.update(group)
    return out


def check_disjoint() -> None:
    """No template in two sets, and at least 8 per request kind and per slot answer in each."""
    for one, other in ((A, B), (A, C), (B, C)):
        shared = _templates(one) & _templates(other)
        assert not shared, f"templates in sets {one.name} and {other.name}: {sorted(shared)}"
    for w in (A, B, C):
        for key, group in (*w.opening.items(), *w.answer.items(), ("yes", w.yes), ("no", w.no)):
            assert len(group) >= 8, f"set {w.name}: only {len(group)} wordings for {key}"
