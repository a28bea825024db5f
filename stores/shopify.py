"""`STORE_BACKEND=shopify`: a Shopify store through its Admin GraphQL API (SHOPIFY_SHOP, SHOPIFY_ACCESS_TOKEN).

Ids: a customer's id is the number at the end of its Shopify id (`gid://shopify/Customer/<n>`, what the
storefront knows as the customer's id and signs the shopper in with); an item's id is its variant's number, a
product's its product's number; an order's id is its name (`#S1001`).

What each operation is at Shopify (docs/store-api.md has the contract; the README the limits):
- a customer: `customer(id:)`; by email: `customers(query: "email:…")`; the payment methods a customer has are
  the ones their recent orders were paid with (`transactions { gateway paymentDetails }`), since the Admin API
  shows no wallet; by zip: not offered (Shopify's customer search documents no zip filter), so a shopper proves
  who they are by email, or by an order and their phone's last digits;
- orders: `orders(query: "customer_id:…")`, one by `name:`; a parcel by its tracking number among the customer's
  recent orders; statuses from `cancelledAt`, `returnStatus`, `displayFulfillmentStatus` and the fulfilments'
  `displayStatus` (DELIVERED) or `deliveredAt`;
- variants: `nodes(ids:)` of variants, or of products with their variants; the catalogue: `products(query:
  "status:active")` with their variants, and `shop { currencyCode }`;
- cancel: `orderCancel` (reason CUSTOMER, restocked, refunded to the original methods); address: `orderUpdate`
  with `shippingAddress`; items: an order edit (`orderEditBegin`, `orderEditSetQuantity` to take one off,
  `orderEditAddVariant`, `orderEditCommit`), where Shopify settles the difference itself; return: `returnRequest`
  (the merchant approves it); exchange: `returnCreate` with `exchangeLineItems`; default address:
  `customerAddressCreate(setAsDefault: true)`;
- not possible: paying an order with another method (the Admin API has no such mutation): refused as
  `not_supported`.

Transport: a timeout per call; a query is tried again after a transport failure, a 5xx, or Shopify's throttle
(HTTP 429 or `THROTTLED`, waiting as long as `throttleStatus` says the bucket needs); a mutation is retried only
when throttled (Shopify did not run it); the breaker of stores/breaker.py.
"""

from __future__ import annotations

import json
import time
from collections.abc import Sequence
from datetime import datetime
from decimal import Decimal
from typing import Any

import urllib3
from django.conf import settings

from stores.breaker import breaker_failed, breaker_open, breaker_succeeded
from stores.records import (
    ItemsSwap,
    Order,
    OrderLine,
    OrderStatus,
    Payment,
    PaymentKind,
    PaymentMethod,
    Product,
    Shipment,
    StoreCatalogue,
    StoreCustomer,
    StoreError,
    StoreTimedOut,
    StoreUnavailable,
    TrackingEvent,
    Variant,
    WriteResult,
    address_clean,
)

RETRY_BACKOFF_S = (0.2, 0.6)
MAX_THROTTLE_WAIT_S = 2.0
RECENT_ORDERS = 50
COUNTRY_CODES = {"usa": "US", "united states": "US", "us": "US", "china": "CN", "中国": "CN", "uk": "GB"}

_ADDRESS = "address1 address2 city province provinceCode country countryCodeV2 zip"
_MONEY = "shopMoney { amount currencyCode }"
_TRANSACTIONS = f"transactions(first: 20) {{ kind status gateway amountSet {{ {_MONEY} }} paymentDetails {{ ... on CardPaymentDetails {{ company number }} }} }}"  # noqa: E501
_ORDER = f"""id name createdAt cancelledAt displayFulfillmentStatus returnStatus currencyCode customer {{ id }}
  shippingAddress {{ {_ADDRESS} }}
  lineItems(first: 50) {{ nodes {{ id quantity name originalUnitPriceSet {{ {_MONEY} }}
    variant {{ id selectedOptions {{ name value }} product {{ id title }} }} }} }}
  fulfillments(first: 10) {{ displayStatus deliveredAt estimatedDeliveryAt trackingInfo(first: 5) {{ number company }}
    fulfillmentLineItems(first: 50) {{ nodes {{ id quantity lineItem {{ id variant {{ id }} }} }} }} }}
  {_TRANSACTIONS}"""
_CUSTOMER = f"""id firstName lastName displayName defaultEmailAddress {{ emailAddress }}
  defaultPhoneNumber {{ phoneNumber }} defaultAddress {{ {_ADDRESS} }}"""
_VARIANT = "id price inventoryQuantity availableForSale selectedOptions { name value } product { id title }"
_USER_ERRORS = "userErrors { field message }"

Q_CUSTOMER = f"""query Customer($id: ID!) {{ customer(id: $id) {{ {_CUSTOMER}
  orders(first: 10, sortKey: CREATED_AT, reverse: true) {{ nodes {{ {_TRANSACTIONS} }} }} }} }}"""
Q_CUSTOMERS = f"query Customers($query: String!) {{ customers(first: 2, query: $query) {{ nodes {{ {_CUSTOMER} }} }} }}"
Q_ORDERS = f"""query Orders($query: String!, $first: Int!) {{
  orders(first: $first, query: $query, sortKey: CREATED_AT, reverse: true) {{ nodes {{ {_ORDER} }} }} }}"""
Q_VARIANTS = f"query Variants($ids: [ID!]!) {{ nodes(ids: $ids) {{ ... on ProductVariant {{ {_VARIANT} }} }} }}"
Q_PRODUCT_VARIANTS = f"""query ProductVariants($ids: [ID!]!) {{ nodes(ids: $ids) {{
  ... on Product {{ variants(first: 100) {{ nodes {{ {_VARIANT} }} }} }} }} }}"""
# Shopify refuses a query costing over 1,000 points: 25 products of up to 30 variants stay under it.
Q_CATALOGUE = """query Catalogue($after: String) { shop { currencyCode }
  products(first: 25, after: $after, sortKey: TITLE, query: "status:active") {
    nodes { id title productType tags variants(first: 30) {
      nodes { id price inventoryQuantity availableForSale selectedOptions { name value } } } }
    pageInfo { hasNextPage endCursor } } }"""
CATALOGUE_PAGES = 40
M_CANCEL = """mutation OrderCancel($orderId: ID!, $staffNote: String) {
  orderCancel(orderId: $orderId, reason: CUSTOMER, restock: true, notifyCustomer: true, staffNote: $staffNote,
    refundMethod: { originalPaymentMethodsRefund: true }) {
    job { id done } orderCancelUserErrors { field message code } } }"""
M_UPDATE = f"""mutation OrderUpdate($input: OrderInput!) {{ orderUpdate(input: $input) {{
  order {{ id }} {_USER_ERRORS} }} }}"""
M_EDIT_BEGIN = f"""mutation OrderEditBegin($id: ID!) {{ orderEditBegin(id: $id) {{
  calculatedOrder {{ id lineItems(first: 50) {{ nodes {{ id quantity variant {{ id }} }} }} }} {_USER_ERRORS} }} }}"""
M_EDIT_SET_QUANTITY = f"""mutation OrderEditSetQuantity($id: ID!, $lineItemId: ID!, $quantity: Int!) {{
  orderEditSetQuantity(id: $id, lineItemId: $lineItemId, quantity: $quantity, restock: true) {{
    calculatedLineItem {{ id }} {_USER_ERRORS} }} }}"""
M_EDIT_ADD_VARIANT = f"""mutation OrderEditAddVariant($id: ID!, $variantId: ID!, $quantity: Int!) {{
  orderEditAddVariant(id: $id, variantId: $variantId, quantity: $quantity, allowDuplicates: true) {{
    calculatedLineItem {{ id }} {_USER_ERRORS} }} }}"""
M_EDIT_COMMIT = f"""mutation OrderEditCommit($id: ID!, $staffNote: String) {{
  orderEditCommit(id: $id, notifyCustomer: true, staffNote: $staffNote) {{ order {{ id }} {_USER_ERRORS} }} }}"""
M_RETURN_REQUEST = """mutation ReturnRequest($input: ReturnRequestInput!) { returnRequest(input: $input) {
  return { id status } userErrors { field message code } } }"""
M_RETURN_CREATE = """mutation ReturnCreate($returnInput: ReturnInput!) { returnCreate(returnInput: $returnInput) {
  return { id status } userErrors { field message code } } }"""
M_ADDRESS_CREATE = f"""mutation CustomerAddressCreate($customerId: ID!, $address: MailingAddressInput!) {{
  customerAddressCreate(customerId: $customerId, address: $address, setAsDefault: true) {{
    address {{ {_ADDRESS} }} {_USER_ERRORS} }} }}"""


def gid(kind: str, number: str) -> str:
    return f"gid://shopify/{kind}/{number}"


def number(shopify_id: str | None) -> str:
    return (shopify_id or "").rsplit("/", 1)[-1]


def _address(mailing: dict[str, Any] | None) -> dict[str, str]:
    mailing = mailing or {}
    return {
        "address1": mailing.get("address1") or "",
        "address2": mailing.get("address2") or "",
        "city": mailing.get("city") or "",
        "state": mailing.get("provinceCode") or mailing.get("province") or "",
        "country": mailing.get("countryCodeV2") or mailing.get("country") or "",
        "zip": mailing.get("zip") or "",
    }


def _mailing_input(address: dict[str, Any]) -> dict[str, str]:
    clean = address_clean(address)
    country = clean["country"].strip()
    code = country.upper() if len(country) == 2 else COUNTRY_CODES.get(country.lower())
    if code is None:
        raise StoreError("bad_address", f"Shopify needs the country as a code (US, CN, …), not {country!r}.")
    mailing = {"address1": clean["address1"], "address2": clean["address2"], "city": clean["city"]}
    return {**mailing, "provinceCode": clean["state"], "countryCode": code, "zip": clean["zip"]}


def _method(transaction: dict[str, Any]) -> PaymentMethod:
    """A payment method as Shopify shows it on a transaction: its gateway, and the card's last digits."""
    gateway = str(transaction.get("gateway") or "unknown")
    card = transaction.get("paymentDetails") or {}
    last_four = "".join(c for c in str(card.get("number") or "") if c.isdigit())[-4:]
    kind = (
        PaymentKind.GIFT_CARD
        if gateway == "gift_card"
        else PaymentKind.PAYPAL
        if "paypal" in gateway
        else PaymentKind.CREDIT_CARD
    )
    return PaymentMethod(
        payment_method_id=f"{gateway}:{last_four}" if last_four else gateway,
        kind=kind,
        brand=str(card.get("company") or ""),
        last_four=last_four,
    )


def _payments(transactions: list[dict[str, Any]]) -> tuple[Payment, ...]:
    kinds = {"SALE": "payment", "CAPTURE": "payment", "REFUND": "refund"}
    return tuple(
        Payment(
            kind=kinds[t["kind"]],
            amount=Decimal(str(t["amountSet"]["shopMoney"]["amount"])),
            payment_method_id=_method(t).payment_method_id,
        )
        for t in transactions
        if t.get("kind") in kinds and t.get("status") == "SUCCESS"
    )


def _status(order: dict[str, Any]) -> str:
    fulfillments = order.get("fulfillments") or []
    if order.get("cancelledAt"):
        return OrderStatus.CANCELLED
    if order.get("returnStatus") in ("RETURN_REQUESTED", "IN_PROGRESS"):
        return OrderStatus.RETURN_REQUESTED
    if any(f.get("displayStatus") == "DELIVERED" or f.get("deliveredAt") for f in fulfillments):
        return OrderStatus.DELIVERED
    if order.get("displayFulfillmentStatus") in ("UNFULFILLED", "OPEN", "SCHEDULED", "ON_HOLD", "PENDING_FULFILLMENT"):
        return OrderStatus.PENDING
    return OrderStatus.PROCESSED


def _order(node: dict[str, Any]) -> Order:
    lines = []
    for item in node["lineItems"]["nodes"]:
        variant = item.get("variant") or {}
        options = {o["name"]: o["value"] for o in variant.get("selectedOptions") or []}
        price = Decimal(str(item["originalUnitPriceSet"]["shopMoney"]["amount"]))
        line = OrderLine(
            item_id=number(variant.get("id")),
            product_id=number((variant.get("product") or {}).get("id")),
            name=(variant.get("product") or {}).get("title") or item["name"],
            name_zh="",
            options=options,
            price=price,
        )
        lines += [line] * int(item.get("quantity") or 1)  # one line per unit, as the records count items
    shipments = tuple(
        Shipment(
            tracking_ids=tuple(t["number"] for t in f.get("trackingInfo") or [] if t.get("number")),
            item_ids=tuple(
                number(((i.get("lineItem") or {}).get("variant") or {}).get("id"))
                for i in (f.get("fulfillmentLineItems") or {}).get("nodes", [])
            ),
            carrier=next((t.get("company") or "" for t in f.get("trackingInfo") or []), ""),
            events=(TrackingEvent(at=delivered, status="delivered"),)
            if (delivered := _time(f.get("deliveredAt")))
            else (),
        )
        for f in node.get("fulfillments") or []
    )
    return Order(
        order_id=node["name"],
        customer_id=number((node.get("customer") or {}).get("id")),
        status=_status(node),
        currency=node.get("currencyCode") or "",
        items=tuple(lines),
        address=_address(node.get("shippingAddress")),
        placed_at=_time(node.get("createdAt")),
        delivered_at=next(
            (_time(f["deliveredAt"]) for f in node.get("fulfillments") or [] if f.get("deliveredAt")), None
        ),
        shipments=shipments,
        payments=_payments(node.get("transactions") or []),
    )


def _time(value: str | None) -> datetime | None:
    return datetime.fromisoformat(value.replace("Z", "+00:00")) if value else None


def _customer(node: dict[str, Any], transactions: Sequence[dict[str, Any]] = ()) -> StoreCustomer:
    methods = {m.payment_method_id: m for m in (_method(t) for t in transactions if t.get("status") == "SUCCESS")}
    return StoreCustomer(
        customer_id=number(node["id"]),
        name=node.get("displayName") or "",
        first_name=node.get("firstName") or "",
        last_name=node.get("lastName") or "",
        email=(node.get("defaultEmailAddress") or {}).get("emailAddress") or "",
        phone=(node.get("defaultPhoneNumber") or {}).get("phoneNumber") or "",
        default_address=_address(node["defaultAddress"]) if node.get("defaultAddress") else None,
        payment_methods=tuple(sorted(methods.values(), key=lambda m: m.payment_method_id)),
    )


def _variant(node: dict[str, Any], product: dict[str, Any] | None = None) -> Variant:
    product = product or node.get("product") or {}
    return Variant(
        item_id=number(node["id"]),
        product_id=number(product.get("id")),
        product_name=product.get("title") or "",
        options={o["name"]: o["value"] for o in node.get("selectedOptions") or []},
        price=Decimal(str(node.get("price") or "0")),
        stock=node.get("inventoryQuantity"),
        available=bool(node.get("availableForSale", True)),
    )


class ShopifyStore:
    name = "shopify"

    def __init__(self, url: str = "", token: str = "", timeout_s: float = 0) -> None:
        shop = settings.SHOPIFY_SHOP
        domain = shop if "." in shop else f"{shop}.myshopify.com"
        self.url = (
            url
            or settings.SHOPIFY_ADMIN_URL
            or f"https://{domain}/admin/api/{settings.SHOPIFY_API_VERSION}/graphql.json"
        )
        self.token = token or settings.SHOPIFY_ACCESS_TOKEN
        timeout = timeout_s or settings.STORE_API_TIMEOUT_S
        self.pool = urllib3.PoolManager(
            maxsize=4, retries=False, timeout=urllib3.Timeout(connect=min(timeout, 2.0), read=timeout)
        )

    # --- transport ---------------------------------------------------------------------------------

    def _post(self, operation: str, query: str, variables: dict[str, Any]) -> tuple[int, Any]:
        body = json.dumps({"query": query, "variables": variables, "operationName": operation}).encode()
        headers = {"Content-Type": "application/json", "X-Shopify-Access-Token": self.token}
        try:
            response = self.pool.request("POST", self.url, body=body, headers=headers)
        except urllib3.exceptions.ReadTimeoutError:
            raise StoreTimedOut(f"Shopify did not answer {operation} in time.") from None
        except urllib3.exceptions.HTTPError as exc:
            raise StoreUnavailable(f"Shopify did not answer {operation}: {type(exc).__name__}.") from None
        try:
            return response.status, json.loads(response.data or b"null")
        except ValueError:
            raise StoreUnavailable(f"Shopify answered {operation} with something that is not JSON.") from None

    @staticmethod
    def _throttle_wait(answer: Any) -> float | None:
        """Seconds to wait when Shopify throttled the call (it did not run it), None when it did not."""
        errors = answer.get("errors") if isinstance(answer, dict) else None
        if not isinstance(errors, list) or not any(
            (e.get("extensions") or {}).get("code") == "THROTTLED" for e in errors if isinstance(e, dict)
        ):
            return None
        cost = (answer.get("extensions") or {}).get("cost") or {}
        status = cost.get("throttleStatus") or {}
        missing = float(cost.get("requestedQueryCost") or 0) - float(status.get("currentlyAvailable") or 0)
        return min(MAX_THROTTLE_WAIT_S, max(0.05, missing / float(status.get("restoreRate") or 100)))

    def _call(self, operation: str, query: str, variables: dict[str, Any]) -> dict[str, Any]:
        """The `data` of one operation. A query is tried again after a failure in transport (not a timeout) or a
        5xx; any operation is sent again after Shopify's throttle, which means it did not run."""
        if breaker_open(self.name):
            raise StoreUnavailable("Shopify failed several times in a row: it is left alone for a while.")
        is_query = query.lstrip().startswith("query")
        for attempt in range(1 + len(RETRY_BACKOFF_S)):
            last = attempt == len(RETRY_BACKOFF_S)
            try:
                status, answer = self._post(operation, query, variables)
            except StoreUnavailable as exc:
                if is_query and not last and not isinstance(exc, StoreTimedOut):
                    time.sleep(RETRY_BACKOFF_S[attempt])
                    continue
                breaker_failed(self.name)
                raise
            wait = 1.0 if status == 429 else self._throttle_wait(answer)
            if wait is not None and not last:
                time.sleep(wait)
                continue
            if status >= 500 and is_query and not last:
                time.sleep(RETRY_BACKOFF_S[attempt])
                continue
            return self._data(operation, status, answer)
        raise StoreUnavailable(f"Shopify kept throttling {operation}.")

    def _data(self, operation: str, status: int, answer: Any) -> dict[str, Any]:
        if status != 200 or not isinstance(answer, dict) or answer.get("errors") or "data" not in answer:
            breaker_failed(self.name)
            raise StoreUnavailable(f"Shopify refused {operation} ({status}): {str(answer)[:200]}")
        breaker_succeeded(self.name)
        return dict(answer["data"] or {})

    @staticmethod
    def _user_errors(payload: dict[str, Any] | None, key: str = "userErrors") -> None:
        errors = (payload or {}).get(key) or []
        if errors:
            first = errors[0]
            code = str(first.get("code") or "refused").lower()
            raise StoreError(f"shopify_{code}", str(first.get("message") or "Shopify refused the change."))

    # --- reads ------------------------------------------------------------------------------------

    def health(self) -> dict[str, Any]:
        try:
            self._post("Health", "query Health { shop { name } }", {})
        except StoreUnavailable as exc:
            return {"ok": False, "url": self.url, "breaker_open": breaker_open(self.name), "error": str(exc)}
        return {"ok": True, "url": self.url, "breaker_open": breaker_open(self.name)}

    def customer(self, customer_id: str) -> StoreCustomer | None:
        node = self._call("Customer", Q_CUSTOMER, {"id": gid("Customer", customer_id)}).get("customer")
        if not node:
            return None
        transactions = [t for o in node["orders"]["nodes"] for t in o.get("transactions") or []]
        return _customer(node, transactions)

    def customers_by_email(self, email: str) -> list[StoreCustomer]:
        quoted = email.strip().replace('"', "")
        data = self._call("Customers", Q_CUSTOMERS, {"query": f'email:"{quoted}"'})
        found = [_customer(n) for n in data["customers"]["nodes"]]
        return [c for c in found if c.email.lower() == email.strip().lower()][:2]

    def customers_by_zip(self, zip_code: str) -> list[StoreCustomer]:
        return []  # Shopify's customer search documents no zip filter: name + zip is no proof here

    def _orders(self, search: str, first: int) -> list[Order]:
        data = self._call("Orders", Q_ORDERS, {"query": search, "first": first})
        return [_order(n) for n in data["orders"]["nodes"]]

    @staticmethod
    def _name(order_id: str) -> str:
        return order_id if order_id.startswith("#") else f"#{order_id}"

    def order_owner(self, order_id: str) -> StoreCustomer | None:
        name = self._name(order_id)
        found = [o for o in self._orders(f'name:"{name}"', 5) if o.order_id == name]
        return self.customer(found[0].customer_id) if found and found[0].customer_id else None

    def order(self, customer_id: str, order_id: str) -> Order | None:
        name = self._name(order_id)
        found = self._orders(f'name:"{name}" customer_id:{customer_id}', 5)
        return next((o for o in found if o.order_id == name and o.customer_id == customer_id), None)

    def orders(self, customer_id: str, *, statuses: Sequence[str] = (), limit: int = 20) -> list[Order]:
        found = self._orders(f"customer_id:{customer_id}", RECENT_ORDERS if statuses else min(limit, RECENT_ORDERS))
        return [o for o in found if not statuses or o.status in statuses][:limit]

    def order_by_tracking(self, customer_id: str, tracking_number: str) -> Order | None:
        recent = self._orders(f"customer_id:{customer_id}", RECENT_ORDERS)
        return next((o for o in recent if any(tracking_number in s.tracking_ids for s in o.shipments)), None)

    def catalogue(self) -> StoreCatalogue:
        """The shop's active products, up to CATALOGUE_PAGES pages of them (1,000 products; a bigger shop would be
        read with a bulk operation, which this client does not do). Shopify has no subsidies, Chinese names or
        aliases: a product goes by its title."""
        products: list[Product] = []
        after: str | None = None
        for _ in range(CATALOGUE_PAGES):
            data = self._call("Catalogue", Q_CATALOGUE, {"after": after})
            for node in data["products"]["nodes"]:
                variants = [_variant(v, node) for v in node["variants"]["nodes"]]
                products.append(
                    Product(
                        product_id=number(node["id"]),
                        name=node["title"],
                        category=node.get("productType") or "",
                        tags=tuple(node.get("tags") or ()),
                        variants=tuple(sorted(variants, key=lambda v: (v.price, v.item_id))),
                    )
                )
            page = data["products"]["pageInfo"]
            if not page["hasNextPage"]:
                break
            after = page["endCursor"]
        return StoreCatalogue(currency=data["shop"]["currencyCode"], products=tuple(products))

    def product_variants(self, product_ids: Sequence[str]) -> list[Variant]:
        if not product_ids:
            return []
        data = self._call("ProductVariants", Q_PRODUCT_VARIANTS, {"ids": [gid("Product", p) for p in product_ids]})
        return [_variant(v) for p in data["nodes"] if p for v in p["variants"]["nodes"]]

    def variants(self, item_ids: Sequence[str]) -> list[Variant]:
        if not item_ids:
            return []
        data = self._call("Variants", Q_VARIANTS, {"ids": [gid("ProductVariant", i) for i in item_ids]})
        return [_variant(v) for v in data["nodes"] if v]

    # --- writes -----------------------------------------------------------------------------------

    def _own_order(self, customer_id: str, order_id: str) -> tuple[Order, dict[str, Any]]:
        """The customer's order and Shopify's node of it; another customer's is reported like a missing one."""
        name = self._name(order_id)
        found = self._call("Orders", Q_ORDERS, {"query": f'name:"{name}" customer_id:{customer_id}', "first": 5})
        for node in found["orders"]["nodes"]:
            order = _order(node)
            if order.order_id == name and order.customer_id == customer_id:
                return order, node
        raise StoreError("order_not_found", f"No order {order_id} was found for this customer.")

    def _after(self, customer_id: str, order_id: str, details: dict[str, Any]) -> WriteResult:
        """The write's result as the store reports it now: the order read again."""
        order = self.order(customer_id, order_id)
        return WriteResult(order_id, order.status if order else OrderStatus.PENDING, details)

    @staticmethod
    def _require(order: Order, *statuses: str) -> None:
        if order.status not in statuses:
            raise StoreError("wrong_status", f"Order {order.order_id} is {order.status}.")

    def order_cancel(self, customer_id: str, order_id: str, *, reason: str, key: str) -> WriteResult:
        order, node = self._own_order(customer_id, order_id)
        self._require(order, OrderStatus.PENDING)
        data = self._call("OrderCancel", M_CANCEL, {"orderId": node["id"], "staffNote": f"Customer: {reason}"})
        payload = data.get("orderCancel") or {}
        self._user_errors(payload, "orderCancelUserErrors")
        # Shopify cancels in a background job: the request is taken, so the order is reported cancelled.
        return WriteResult(order.order_id, OrderStatus.CANCELLED, {"reason": reason, "job": payload.get("job")})

    def order_modify_address(
        self, customer_id: str, order_id: str, *, address: dict[str, Any], key: str
    ) -> WriteResult:
        order, node = self._own_order(customer_id, order_id)
        self._require(order, OrderStatus.PENDING)
        mailing = _mailing_input(address)
        data = self._call("OrderUpdate", M_UPDATE, {"input": {"id": node["id"], "shippingAddress": mailing}})
        self._user_errors(data.get("orderUpdate"))
        return self._after(customer_id, order.order_id, {"address": address_clean(address)})

    def order_modify_payment(self, customer_id: str, order_id: str, *, payment_method_id: str, key: str) -> WriteResult:
        raise StoreError("not_supported", "A Shopify order can't be paid with another method through its API.")

    def order_modify_items(self, customer_id: str, order_id: str, *, swap: ItemsSwap, key: str) -> WriteResult:
        order, node = self._own_order(customer_id, order_id)
        self._require(order, OrderStatus.PENDING)
        begun = self._call("OrderEditBegin", M_EDIT_BEGIN, {"id": node["id"]}).get("orderEditBegin") or {}
        self._user_errors(begun)
        calculated = begun["calculatedOrder"]
        quantities = {number((n.get("variant") or {}).get("id")): n for n in calculated["lineItems"]["nodes"]}
        for old, new in zip(swap.item_ids, swap.new_item_ids, strict=True):
            line = quantities.get(old)
            if line is None or line["quantity"] < 1:
                raise StoreError("item_not_in_order", f"Item {old} is not in order {order_id}.")
            line["quantity"] -= 1
            taken = self._call(
                "OrderEditSetQuantity",
                M_EDIT_SET_QUANTITY,
                {"id": calculated["id"], "lineItemId": line["id"], "quantity": line["quantity"]},
            )
            self._user_errors(taken.get("orderEditSetQuantity"))
            added = self._call(
                "OrderEditAddVariant",
                M_EDIT_ADD_VARIANT,
                {"id": calculated["id"], "variantId": gid("ProductVariant", new), "quantity": 1},
            )
            self._user_errors(added.get("orderEditAddVariant"))
        committed = self._call("OrderEditCommit", M_EDIT_COMMIT, {"id": calculated["id"], "staffNote": "Customer"})
        self._user_errors(committed.get("orderEditCommit"))
        return self._after(customer_id, order.order_id, {"new_item_ids": swap.new_item_ids})

    def _return_lines(
        self, customer_id: str, order_id: str, item_ids: list[str]
    ) -> tuple[Order, str, list[dict[str, Any]]]:
        """The delivered order, its Shopify id, and one fulfilled unit of each item to send back."""
        order, node = self._own_order(customer_id, order_id)
        self._require(order, OrderStatus.DELIVERED)
        fulfilled = [line for f in node.get("fulfillments") or [] for line in f["fulfillmentLineItems"]["nodes"]]
        left = {line["id"]: int(line["quantity"]) for line in fulfilled}
        lines = []
        for item_id in item_ids:
            match = next(
                (f for f in fulfilled if number(f["lineItem"]["variant"]["id"]) == item_id and left[f["id"]] > 0), None
            )
            if match is None:
                raise StoreError("item_not_in_order", f"Item {item_id} was not delivered in order {order_id}.")
            left[match["id"]] -= 1
            lines.append({"fulfillmentLineItemId": match["id"], "quantity": 1, "returnReason": "OTHER"})
        return order, node["id"], lines

    def order_return(
        self, customer_id: str, order_id: str, *, item_ids: list[str], payment_method_id: str, key: str
    ) -> WriteResult:
        order, shopify_id, lines = self._return_lines(customer_id, order_id, item_ids)
        data = self._call(
            "ReturnRequest", M_RETURN_REQUEST, {"input": {"orderId": shopify_id, "returnLineItems": lines}}
        )
        self._user_errors(data.get("returnRequest"))
        return WriteResult(order.order_id, OrderStatus.RETURN_REQUESTED, {"return_items": sorted(item_ids)})

    def order_exchange(self, customer_id: str, order_id: str, *, swap: ItemsSwap, key: str) -> WriteResult:
        order, shopify_id, lines = self._return_lines(customer_id, order_id, swap.item_ids)
        exchange = [{"variantId": gid("ProductVariant", v), "quantity": 1} for v in swap.new_item_ids]
        returned = {"orderId": shopify_id, "returnLineItems": lines, "exchangeLineItems": exchange}
        data = self._call("ReturnCreate", M_RETURN_CREATE, {"returnInput": returned})
        self._user_errors(data.get("returnCreate"))
        details = {"exchange_items": sorted(swap.item_ids), "exchange_new_items": sorted(swap.new_item_ids)}
        return WriteResult(order.order_id, OrderStatus.EXCHANGE_REQUESTED, details)

    def default_address_set(self, customer_id: str, *, address: dict[str, Any], key: str) -> dict[str, str]:
        data = self._call(
            "CustomerAddressCreate",
            M_ADDRESS_CREATE,
            {"customerId": gid("Customer", customer_id), "address": _mailing_input(address)},
        )
        payload = data.get("customerAddressCreate") or {}
        self._user_errors(payload)
        return _address(payload.get("address"))
