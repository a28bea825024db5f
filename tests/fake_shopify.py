"""A local server that answers as Shopify's Admin GraphQL API documents, for STORE_BACKEND=shopify tests.

Shopify cannot be reached from these machines, so, as the fake OpenAI server does for the LLM, this one answers
the operations the client sends (by `operationName`) with the documented shapes: `data` with the root field,
`extensions.cost` with a `throttleStatus`, mutation payloads with their `userErrors` (`orderCancelUserErrors` for
a cancel, coded errors for returns), 401 with Shopify's error text for a wrong access token, and, when told to,
the documented throttle (`errors[].extensions.code == "THROTTLED"`, no `data`) or a 503. It holds a small shop in
memory (customers, products, variants, orders) and changes it as the mutations do. Every request is recorded.
"""

from __future__ import annotations

import copy
import json
import re
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import pytest

TOKEN = "shpat_fake_token_for_tests"
PATH = "/admin/api/2025-10/graphql.json"
JSON = dict[str, Any]


def _gid(kind: str, n: int | str) -> str:
    return f"gid://shopify/{kind}/{n}"


def _num(gid: str) -> str:
    return gid.rsplit("/", 1)[-1]


def _address(city: str, zip_code: str) -> JSON:
    return {
        "address1": "10 Harbour St",
        "address2": "",
        "city": city,
        "province": "Washington",
        "provinceCode": "WA",
        "country": "United States",
        "countryCodeV2": "US",
        "zip": zip_code,
    }


def _money(amount: str) -> JSON:
    return {"shopMoney": {"amount": amount, "currencyCode": "USD"}}


def demo_shop() -> JSON:
    """Ada (7001) has a pending order and a delivered one; Bo (7002) has one pending order."""
    variants = {
        "501": {"price": "120.00", "options": {"Color": "Black", "Size": "M"}, "product": "301", "stock": 5},
        "502": {"price": "120.00", "options": {"Color": "Blue", "Size": "M"}, "product": "301", "stock": 3},
        "503": {"price": "130.00", "options": {"Color": "Black", "Size": "L"}, "product": "301", "stock": 0},
        "601": {"price": "45.50", "options": {"Capacity": "1L"}, "product": "302", "stock": None},
    }
    products = {"301": "Trail Jacket", "302": "Water Bottle"}
    kinds = {"301": ("Jackets", ["outdoor", "rain"]), "302": ("Bottles", ["outdoor"])}

    def card(amount: str) -> JSON:
        return {
            "kind": "SALE",
            "status": "SUCCESS",
            "gateway": "shopify_payments",
            "amountSet": _money(amount),
            "paymentDetails": {"company": "Visa", "number": "•••• •••• •••• 4242"},
        }

    def line(n: int, variant: str, quantity: int = 1) -> JSON:
        return {"id": _gid("LineItem", n), "variant": variant, "quantity": quantity}

    orders = {
        "9001": {
            "name": "#S1001",
            "customer": "7001",
            "createdAt": "2026-11-20T10:00:00Z",
            "cancelledAt": None,
            "displayFulfillmentStatus": "UNFULFILLED",
            "returnStatus": "NO_RETURN",
            "shippingAddress": _address("Seattle", "98101"),
            "lineItems": [line(1, "501"), line(2, "601")],
            "fulfillments": [],
            "transactions": [card("165.50")],
        },
        "9002": {
            "name": "#S1002",
            "customer": "7001",
            "createdAt": "2026-11-10T10:00:00Z",
            "cancelledAt": None,
            "displayFulfillmentStatus": "FULFILLED",
            "returnStatus": "NO_RETURN",
            "shippingAddress": _address("Seattle", "98101"),
            "lineItems": [line(3, "502")],
            "fulfillments": [
                {
                    "displayStatus": "DELIVERED",
                    "deliveredAt": "2026-11-14T16:00:00Z",
                    "estimatedDeliveryAt": None,
                    "trackingInfo": [{"number": "1Z999AA10123456784", "company": "UPS"}],
                    "lines": [{"id": _gid("FulfillmentLineItem", 81), "line": 3, "quantity": 1}],
                }
            ],
            "transactions": [card("120.00")],
        },
        "9003": {
            "name": "#S1003",
            "customer": "7002",
            "createdAt": "2026-11-21T10:00:00Z",
            "cancelledAt": None,
            "displayFulfillmentStatus": "UNFULFILLED",
            "returnStatus": "NO_RETURN",
            "shippingAddress": _address("Tacoma", "98402"),
            "lineItems": [line(4, "601")],
            "fulfillments": [],
            "transactions": [card("45.50")],
        },
    }
    customers = {
        "7001": {"first": "Ada", "last": "Lovelace", "email": "ada@example.com", "phone": "+12065550101"},
        "7002": {"first": "Bo", "last": "Wang", "email": "bo.wang@example.com", "phone": "+12065550102"},
    }
    return {
        "variants": variants,
        "products": products,
        "kinds": kinds,
        "orders": orders,
        "customers": customers,
        "edits": {},
    }


class FakeShopify:
    def __init__(self) -> None:
        self.shop = demo_shop()
        self.requests: list[JSON] = []
        self.throttle_next = 0  # answer this many requests with the documented throttle
        self.fail_next = 0  # answer this many requests with 503
        self.lock = threading.Lock()
        self._server = ThreadingHTTPServer(("127.0.0.1", 0), self._handler())
        self.url = f"http://127.0.0.1:{self._server.server_address[1]}{PATH}"
        threading.Thread(target=self._server.serve_forever, daemon=True).start()

    def close(self) -> None:
        self._server.shutdown()
        self._server.server_close()

    def operations(self) -> list[str]:
        return [r["operationName"] for r in self.requests]

    # --- the shop's nodes, as the documented fields ---------------------------------------------------

    def _variant(self, n: str) -> JSON | None:
        v = self.shop["variants"].get(n)
        if v is None:
            return None
        return {
            "id": _gid("ProductVariant", n),
            "price": v["price"],
            "inventoryQuantity": v["stock"],
            "availableForSale": v["stock"] is None or v["stock"] > 0,
            "selectedOptions": [{"name": k, "value": value} for k, value in v["options"].items()],
            "product": {"id": _gid("Product", v["product"]), "title": self.shop["products"][v["product"]]},
        }

    def _order(self, n: str) -> JSON:
        o = self.shop["orders"][n]
        lines = {line["id"]: line for line in o["lineItems"]}
        return {
            "id": _gid("Order", n),
            "name": o["name"],
            "createdAt": o["createdAt"],
            "cancelledAt": o["cancelledAt"],
            "displayFulfillmentStatus": o["displayFulfillmentStatus"],
            "returnStatus": o["returnStatus"],
            "currencyCode": "USD",
            "customer": {"id": _gid("Customer", o["customer"])},
            "shippingAddress": o["shippingAddress"],
            "lineItems": {
                "nodes": [
                    {
                        "id": line["id"],
                        "quantity": line["quantity"],
                        "name": self.shop["products"][self.shop["variants"][line["variant"]]["product"]],
                        "originalUnitPriceSet": _money(self.shop["variants"][line["variant"]]["price"]),
                        "variant": self._variant(line["variant"]),
                    }
                    for line in o["lineItems"]
                    if line["quantity"] > 0
                ]
            },
            "fulfillments": [
                {
                    "displayStatus": f["displayStatus"],
                    "deliveredAt": f["deliveredAt"],
                    "estimatedDeliveryAt": f["estimatedDeliveryAt"],
                    "trackingInfo": f["trackingInfo"],
                    "fulfillmentLineItems": {
                        "nodes": [
                            {
                                "id": fl["id"],
                                "quantity": fl["quantity"],
                                "lineItem": {
                                    "id": _gid("LineItem", fl["line"]),
                                    "variant": {
                                        "id": _gid("ProductVariant", lines[_gid("LineItem", fl["line"])]["variant"])
                                    },
                                },
                            }
                            for fl in f["lines"]
                        ]
                    },
                }
                for f in o["fulfillments"]
            ],
            "transactions": o["transactions"],
        }

    def _customer(self, n: str) -> JSON | None:
        c = self.shop["customers"].get(n)
        if c is None:
            return None
        mine = sorted(
            (k for k, o in self.shop["orders"].items() if o["customer"] == n),
            key=lambda k: self.shop["orders"][k]["createdAt"],
            reverse=True,
        )
        return {
            "id": _gid("Customer", n),
            "firstName": c["first"],
            "lastName": c["last"],
            "displayName": f"{c['first']} {c['last']}",
            "defaultEmailAddress": {"emailAddress": c["email"]},
            "defaultPhoneNumber": {"phoneNumber": c["phone"]},
            "defaultAddress": c.get("address") or _address("Seattle", "98101"),
            "orders": {"nodes": [{"transactions": self.shop["orders"][k]["transactions"]} for k in mine[:10]]},
        }

    # --- operations -----------------------------------------------------------------------------------

    def _orders(self, v: JSON) -> JSON:
        terms = dict(re.findall(r'(\w+):"?([^"\s]+)"?', v["query"]))
        found = [
            k
            for k, o in self.shop["orders"].items()
            if ("name" not in terms or o["name"] == terms["name"])
            and ("customer_id" not in terms or o["customer"] == terms["customer_id"])
        ]
        found.sort(key=lambda k: self.shop["orders"][k]["createdAt"], reverse=True)
        return {"orders": {"nodes": [self._order(k) for k in found[: v["first"]]]}}

    def _cancel(self, v: JSON) -> JSON:
        o = self.shop["orders"].get(_num(v["orderId"]))
        if o is None:
            error = {"field": ["orderId"], "message": "Order does not exist", "code": "NOT_FOUND"}
        elif o["cancelledAt"] or o["displayFulfillmentStatus"] != "UNFULFILLED":
            error = {"field": ["orderId"], "message": "Order cannot be cancelled.", "code": "INVALID"}
        else:
            o["cancelledAt"] = "2026-12-07T09:00:00Z"
            o["transactions"].append({**o["transactions"][0], "kind": "REFUND"})
            return {"orderCancel": {"job": {"id": _gid("Job", 1), "done": False}, "orderCancelUserErrors": []}}
        return {"orderCancel": {"job": None, "orderCancelUserErrors": [error]}}

    def _update(self, v: JSON) -> JSON:
        o = self.shop["orders"][_num(v["input"]["id"])]
        address = v["input"]["shippingAddress"]
        if not re.fullmatch(r"[A-Z]{2}", address.get("countryCode", "")):
            errors = [{"field": ["shippingAddress", "countryCode"], "message": "Country code is invalid"}]
            return {"orderUpdate": {"order": None, "userErrors": errors}}
        o["shippingAddress"] = {**address, "countryCodeV2": address["countryCode"], "province": address["provinceCode"]}
        return {"orderUpdate": {"order": {"id": v["input"]["id"]}, "userErrors": []}}

    def _edit_begin(self, v: JSON) -> JSON:
        n = _num(v["id"])
        o = self.shop["orders"][n]
        staged = {line["id"].replace("LineItem", "CalculatedLineItem"): dict(line) for line in o["lineItems"]}
        self.shop["edits"][n] = staged
        nodes = [
            {"id": k, "quantity": line["quantity"], "variant": {"id": _gid("ProductVariant", line["variant"])}}
            for k, line in staged.items()
        ]
        calculated = {"id": _gid("CalculatedOrder", n), "lineItems": {"nodes": nodes}}
        return {"orderEditBegin": {"calculatedOrder": calculated, "userErrors": []}}

    def _edit_quantity(self, v: JSON) -> JSON:
        staged = self.shop["edits"][_num(v["id"])]
        staged[v["lineItemId"]]["quantity"] = v["quantity"]
        return {"orderEditSetQuantity": {"calculatedLineItem": {"id": v["lineItemId"]}, "userErrors": []}}

    def _edit_add(self, v: JSON) -> JSON:
        variant = self.shop["variants"].get(_num(v["variantId"]))
        if variant is None or variant["stock"] == 0:
            errors = [{"field": ["variantId"], "message": "Variant is not available"}]
            return {"orderEditAddVariant": {"calculatedLineItem": None, "userErrors": errors}}
        staged = self.shop["edits"][_num(v["id"])]
        key = _gid("CalculatedLineItem", f"new{len(staged)}")
        staged[key] = {
            "id": key.replace("CalculatedLineItem", "LineItem"),
            "variant": _num(v["variantId"]),
            "quantity": v["quantity"],
        }
        return {"orderEditAddVariant": {"calculatedLineItem": {"id": key}, "userErrors": []}}

    def _edit_commit(self, v: JSON) -> JSON:
        n = _num(v["id"])
        self.shop["orders"][n]["lineItems"] = list(self.shop["edits"].pop(n).values())
        return {"orderEditCommit": {"order": {"id": _gid("Order", n)}, "userErrors": []}}

    def _return(self, v: JSON, field: str, status: str) -> JSON:
        o = self.shop["orders"][_num(v["orderId"])]
        known = {fl["id"] for f in o["fulfillments"] for fl in f["lines"]}
        if any(line["fulfillmentLineItemId"] not in known for line in v["returnLineItems"]):
            error = {"field": ["returnLineItems"], "message": "Fulfillment line item not found", "code": "NOT_FOUND"}
            return {field: {"return": None, "userErrors": [error]}}
        if o["returnStatus"] != "NO_RETURN":
            error = {"field": ["orderId"], "message": "A return is already open", "code": "INVALID_STATE"}
            return {field: {"return": None, "userErrors": [error]}}
        o["returnStatus"] = "RETURN_REQUESTED" if status == "REQUESTED" else "IN_PROGRESS"
        o["return"] = copy.deepcopy(v)
        return {field: {"return": {"id": _gid("Return", 1), "status": status}, "userErrors": []}}

    def _address_create(self, v: JSON) -> JSON:
        address = v["address"]
        stored = {**address, "countryCodeV2": address["countryCode"], "province": address["provinceCode"]}
        self.shop["customers"][_num(v["customerId"])]["address"] = stored
        return {"customerAddressCreate": {"address": stored, "userErrors": []}}

    def _catalogue(self, v: JSON) -> JSON:
        """Active products by title, one a page, so that the client has to follow `endCursor`."""
        listed = sorted(self.shop["products"].items(), key=lambda p: p[1])
        start = int(v.get("after") or 0)
        nodes = []
        for n, title in listed[start : start + 1]:
            kind, tags = self.shop["kinds"][n]
            variants = [self._variant(k) for k, x in self.shop["variants"].items() if x["product"] == n]
            for variant in variants:
                variant.pop("product")  # asked for from the product, not again inside each variant
            nodes.append(
                {
                    "id": _gid("Product", n),
                    "title": title,
                    "productType": kind,
                    "tags": tags,
                    "variants": {"nodes": variants},
                }
            )
        more = start + 1 < len(listed)
        return {
            "shop": {"currencyCode": "USD"},
            "products": {
                "nodes": nodes,
                "pageInfo": {"hasNextPage": more, "endCursor": str(start + 1) if more else None},
            },
        }

    def answer(self, body: JSON) -> tuple[int, JSON]:
        self.requests.append(body)
        cost = {"requestedQueryCost": 12, "actualQueryCost": 12}
        throttle = {"maximumAvailable": 2000.0, "currentlyAvailable": 1988, "restoreRate": 100.0}
        if self.throttle_next:
            self.throttle_next -= 1
            errors = [{"message": "Throttled", "extensions": {"code": "THROTTLED"}}]
            status = {**throttle, "currentlyAvailable": 2}
            return 200, {
                "errors": errors,
                "extensions": {"cost": {**cost, "actualQueryCost": None, "throttleStatus": status}},
            }
        v = body.get("variables") or {}
        operations = {
            "Health": lambda: {"shop": {"name": "Fake Outdoor Co."}},
            "Customer": lambda: {"customer": self._customer(_num(v["id"]))},
            "Customers": lambda: {
                "customers": {
                    "nodes": [
                        self._customer(k)
                        for k, c in self.shop["customers"].items()
                        if f'email:"{c["email"]}"'.lower() == v["query"].lower()
                    ]
                }
            },
            "Orders": lambda: self._orders(v),
            "Catalogue": lambda: self._catalogue(v),
            "Variants": lambda: {"nodes": [self._variant(_num(i)) for i in v["ids"]]},
            "ProductVariants": lambda: {
                "nodes": [
                    {
                        "variants": {
                            "nodes": [
                                self._variant(k) for k, x in self.shop["variants"].items() if x["product"] == _num(p)
                            ]
                        }
                    }
                    if _num(p) in self.shop["products"]
                    else None
                    for p in v["ids"]
                ]
            },
            "OrderCancel": lambda: self._cancel(v),
            "OrderUpdate": lambda: self._update(v),
            "OrderEditBegin": lambda: self._edit_begin(v),
            "OrderEditSetQuantity": lambda: self._edit_quantity(v),
            "OrderEditAddVariant": lambda: self._edit_add(v),
            "OrderEditCommit": lambda: self._edit_commit(v),
            "ReturnRequest": lambda: self._return(v["input"], "returnRequest", "REQUESTED"),
            "ReturnCreate": lambda: self._return(v["returnInput"], "returnCreate", "OPEN"),
            "CustomerAddressCreate": lambda: self._address_create(v),
        }
        operation = operations.get(body.get("operationName", ""))
        if operation is None:
            return 200, {"errors": [{"message": f"Unknown operation {body.get('operationName')}"}]}
        with self.lock:
            data = operation()
        return 200, {"data": data, "extensions": {"cost": {**cost, "throttleStatus": throttle}}}

    def _handler(self) -> type[BaseHTTPRequestHandler]:
        fake = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:  # noqa: N802 - the name http.server calls
                body = json.loads(self.rfile.read(int(self.headers.get("Content-Length") or 0)) or b"{}")
                if self.headers.get("X-Shopify-Access-Token") != TOKEN:
                    message = "[API] Invalid API key or access token (unrecognized login or wrong password)"
                    self._send(401, {"errors": message})
                elif fake.fail_next:
                    fake.fail_next -= 1
                    self._send(503, {"errors": "Service Unavailable"})
                else:
                    self._send(*fake.answer(body))

            def _send(self, status: int, answer: JSON) -> None:
                data = json.dumps(answer).encode()
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

            def log_message(self, *args: Any) -> None:
                pass  # keep the test output quiet

        return Handler


@pytest.fixture
def fake_shopify() -> Iterator[FakeShopify]:
    fake = FakeShopify()
    yield fake
    fake.close()
