"""The retail domain's tools (tables `orders`, `products`, `users`).

Effects as τ-bench documents them: a pending order can be cancelled (reason "no longer
needed" or "ordered by mistake"; each payment refunded, gift cards at once), have its
items swapped for other available variants of the same products (once: the status
becomes "pending (item modified)"; the price difference paid or refunded), its address
or its payment method changed. A delivered order can have items returned (to the
original payment method or a gift card) or exchanged; both only record the request
(status "return requested" / "exchange requested"). Gift-card balances are rounded to
cents after each change.
"""

from __future__ import annotations

from typing import Any

from trialrun.benchmarks.taubench._errors import ToolFailure
from trialrun.benchmarks.taubench._shared import shared_tools
from trialrun.benchmarks.taubench._tooling import (
    DomainTool,
    Tables,
    as_json,
    define,
    record,
    string_list,
    text,
)

CANCEL_REASONS = ("no longer needed", "ordered by mistake")
ADDRESS_FIELDS = ("address1", "address2", "city", "state", "country", "zip")


def _order(tables: Tables, order_id: str, status: str, verb: str) -> dict[str, Any]:
    order = record(tables["orders"].get(order_id), "order not found")
    if order["status"] != status:
        raise ToolFailure(f"non-{status} order cannot be {verb}")
    return order


def _method(tables: Tables, order: dict[str, Any], payment_method_id: str) -> dict[str, Any]:
    methods = tables["users"][order["user_id"]]["payment_methods"]
    return record(methods.get(payment_method_id), "payment method not found")


def _check_items(order: dict[str, Any], item_ids: list[str]) -> None:
    """Each id at most as often as the order holds it."""
    held = [item["item_id"] for item in order["items"]]
    for item_id in item_ids:
        if item_ids.count(item_id) > held.count(item_id):
            raise ToolFailure(f"{item_id} not found")


def _price_change(tables: Tables, order: dict[str, Any], old: list[str], new: list[str]) -> Any:
    """The price difference of swapping `old` items for `new` variants (validated)."""
    if len(old) != len(new):
        raise ToolFailure("the number of items to be exchanged should match")
    products = tables["products"]
    difference: Any = 0
    for old_id, new_id in zip(old, new, strict=True):
        item = next(i for i in order["items"] if i["item_id"] == old_id)
        variant = products[item["product_id"]]["variants"].get(new_id)
        if variant is None or not variant["available"]:
            raise ToolFailure(f"new item {new_id} not found or available")
        difference += variant["price"] - item["price"]
    return difference


def _is_gift_card(payment_method_id: str) -> bool:
    return "gift_card" in payment_method_id


def find_user_id_by_email(tables: Tables, email: str) -> str:
    wanted = email.lower()
    for user_id, user in tables["users"].items():
        if user["email"].lower() == wanted:
            return user_id
    raise ToolFailure("user not found")


def find_user_id_by_name_zip(tables: Tables, first_name: str, last_name: str, zip: str) -> str:
    for user_id, user in tables["users"].items():
        name = user["name"]
        if (
            name["first_name"].lower() == first_name.lower()
            and name["last_name"].lower() == last_name.lower()
            and user["address"]["zip"] == zip
        ):
            return user_id
    raise ToolFailure("user not found")


def get_user_details(tables: Tables, user_id: str) -> str:
    user = tables["users"].get(user_id)
    if user is None:
        raise ToolFailure("user not found")
    return as_json(user)


def get_order_details(tables: Tables, order_id: str) -> str:
    order = tables["orders"].get(order_id)
    if order is None:
        raise ToolFailure("order not found")
    return as_json(order)


def get_product_details(tables: Tables, product_id: str) -> str:
    product = tables["products"].get(product_id)
    if product is None:
        raise ToolFailure("product not found")
    return as_json(product)


def list_all_product_types(tables: Tables) -> str:
    names = {p["name"]: p["product_id"] for p in tables["products"].values()}
    return as_json(dict(sorted(names.items())))


def cancel_pending_order(tables: Tables, order_id: str, reason: str) -> str:
    order = _order(tables, order_id, "pending", "cancelled")
    if reason not in CANCEL_REASONS:
        raise ToolFailure("invalid reason")
    methods = tables["users"][order["user_id"]]["payment_methods"]
    refunds = []
    for payment in order["payment_history"]:
        method_id = payment["payment_method_id"]
        refunds.append(
            {
                "transaction_type": "refund",
                "amount": payment["amount"],
                "payment_method_id": method_id,
            }
        )
        if _is_gift_card(method_id):
            card = methods[method_id]
            card["balance"] = round(card["balance"] + payment["amount"], 2)
    order["status"] = "cancelled"
    order["cancel_reason"] = reason
    order["payment_history"].extend(refunds)
    return as_json(order)


def modify_pending_order_address(tables: Tables, order_id: str, **address: str) -> str:
    order = _order(tables, order_id, "pending", "modified")
    order["address"] = {key: address[key] for key in ADDRESS_FIELDS}
    return as_json(order)


def modify_user_address(tables: Tables, user_id: str, **address: str) -> str:
    user = tables["users"].get(user_id)
    if user is None:
        raise ToolFailure("user not found")
    user["address"] = {key: address[key] for key in ADDRESS_FIELDS}
    return as_json(user)


def modify_pending_order_items(
    tables: Tables,
    order_id: str,
    item_ids: list[str],
    new_item_ids: list[str],
    payment_method_id: str,
) -> str:
    order = _order(tables, order_id, "pending", "modified")
    old, new = string_list(item_ids, "item_ids"), string_list(new_item_ids, "new_item_ids")
    _check_items(order, old)
    difference = _price_change(tables, order, old, new)
    method = _method(tables, order, payment_method_id)
    if method["source"] == "gift_card" and method["balance"] < difference:
        raise ToolFailure("insufficient gift card balance to pay for the new item")
    order["payment_history"].append(
        {
            "transaction_type": "payment" if difference > 0 else "refund",
            "amount": abs(difference),
            "payment_method_id": payment_method_id,
        }
    )
    if method["source"] == "gift_card":
        method["balance"] = round(method["balance"] - difference, 2)
    products = tables["products"]
    for old_id, new_id in zip(old, new, strict=True):
        item = next(i for i in order["items"] if i["item_id"] == old_id)
        variant = products[item["product_id"]]["variants"][new_id]
        item["item_id"] = new_id
        item["price"] = variant["price"]
        item["options"] = variant["options"]
    order["status"] = "pending (item modified)"
    return as_json(order)


def modify_pending_order_payment(tables: Tables, order_id: str, payment_method_id: str) -> str:
    order = _order(tables, order_id, "pending", "modified")
    method = _method(tables, order, payment_method_id)
    history = order["payment_history"]
    if len(history) != 1 or history[0]["transaction_type"] != "payment":
        raise ToolFailure("there should be exactly one payment for a pending order")
    old_id = history[0]["payment_method_id"]
    if old_id == payment_method_id:
        raise ToolFailure("the new payment method should be different from the current one")
    amount = history[0]["amount"]
    if method["source"] == "gift_card" and method["balance"] < amount:
        raise ToolFailure("insufficient gift card balance to pay for the order")
    history.append(
        {"transaction_type": "payment", "amount": amount, "payment_method_id": payment_method_id}
    )
    history.append({"transaction_type": "refund", "amount": amount, "payment_method_id": old_id})
    if method["source"] == "gift_card":
        method["balance"] = round(method["balance"] - amount, 2)
    if _is_gift_card(old_id):
        old = tables["users"][order["user_id"]]["payment_methods"][old_id]
        old["balance"] = round(old["balance"] + amount, 2)
    return as_json(order)


def return_delivered_order_items(
    tables: Tables, order_id: str, item_ids: list[str], payment_method_id: str
) -> str:
    order = _order(tables, order_id, "delivered", "returned")
    _method(tables, order, payment_method_id)
    original = order["payment_history"][0]["payment_method_id"]
    if not _is_gift_card(payment_method_id) and payment_method_id != original:
        raise ToolFailure(
            "payment method should be either the original payment method or a gift card"
        )
    returned = string_list(item_ids, "item_ids")
    _check_items(order, returned)
    order["status"] = "return requested"
    order["return_items"] = sorted(returned)
    order["return_payment_method_id"] = payment_method_id
    return as_json(order)


def exchange_delivered_order_items(
    tables: Tables,
    order_id: str,
    item_ids: list[str],
    new_item_ids: list[str],
    payment_method_id: str,
) -> str:
    order = _order(tables, order_id, "delivered", "exchanged")
    old, new = string_list(item_ids, "item_ids"), string_list(new_item_ids, "new_item_ids")
    _check_items(order, old)
    difference = round(_price_change(tables, order, old, new), 2)
    method = _method(tables, order, payment_method_id)
    if method["source"] == "gift_card" and method["balance"] < difference:
        raise ToolFailure("insufficient gift card balance to pay for the price difference")
    order["status"] = "exchange requested"
    order["exchange_items"] = sorted(old)
    order["exchange_new_items"] = sorted(new)
    order["exchange_payment_method_id"] = payment_method_id
    order["exchange_price_difference"] = difference
    return as_json(order)


_ORDER_ID = text(
    "string",
    "The order id, such as '#W0000000'. Be careful there is a '#' symbol at the beginning "
    "of the order id.",
)
_USER_ID = text("string", "The user id, such as 'sara_doe_496'.")
_PAYMENT = text(
    "string",
    "The payment method id, such as 'gift_card_0000000' or 'credit_card_0000000', from "
    "the user's details.",
)
_ITEMS = text("array", "The item ids, such as ['1008292230'].", items={"type": "string"})
_ADDRESS = {
    "address1": text("string", "The first line of the address, such as '123 Main St'."),
    "address2": text("string", "The second line of the address, such as 'Apt 1' or ''."),
    "city": text("string", "The city, such as 'San Francisco'."),
    "state": text("string", "The state, such as 'CA'."),
    "country": text("string", "The country, such as 'USA'."),
    "zip": text("string", "The zip code, such as '12345'."),
}


def retail_tools() -> list[DomainTool]:
    """The retail domain's tools in tau-bench's order: the shared ones, then by name."""
    return [*shared_tools(), *sorted([*_lookup_tools(), *_write_tools()], key=lambda t: t.name)]


def _lookup_tools() -> list[DomainTool]:
    """Read-only: find a user, read an order, a product or a user."""
    return [
        define(
            "find_user_id_by_email",
            "Find user id by email. If the user is not found, the function will return an "
            "error message.",
            find_user_id_by_email,
            email=text("string", "The email of the user, such as 'something@example.com'."),
        ),
        define(
            "find_user_id_by_name_zip",
            "Find user id by first name, last name, and zip code. If the user is not found, "
            "the function will return an error message. By default, find user id by email, "
            "and only call this function if the user is not found by email or cannot "
            "remember email.",
            find_user_id_by_name_zip,
            first_name=text("string", "The first name of the customer, such as 'John'."),
            last_name=text("string", "The last name of the customer, such as 'Doe'."),
            zip=text("string", "The zip code of the customer, such as '12345'."),
        ),
        define("get_order_details", "Get the status and details of an order.",
               get_order_details, order_id=_ORDER_ID),
        define("get_product_details", "Get the inventory details of a product.",
               get_product_details,
               product_id=text("string", "The product id, such as '6086499569'.")),
        define("get_user_details", "Get the details of a user, including their orders.",
               get_user_details, user_id=_USER_ID),
        define(
            "list_all_product_types",
            "List the name and product id of all product types. Each product type has a "
            "variety of different items with unique item ids and options. There are only "
            "50 product types in the store.",
            list_all_product_types,
        ),
    ]


def _write_tools() -> list[DomainTool]:
    """The writes (orders, a user's address): each needs the user's explicit yes first."""
    return [
        define(
            "cancel_pending_order",
            "Cancel a pending order. The agent needs to explain the cancellation detail and "
            "ask for explicit user confirmation (yes/no) to proceed. The refund goes to the "
            "original payment method (gift cards at once, others in 5 to 7 business days).",
            cancel_pending_order,
            order_id=_ORDER_ID,
            reason=text("string", "The reason for cancellation.", enum=list(CANCEL_REASONS)),
        ),
        define(
            "exchange_delivered_order_items",
            "Exchange items of a delivered order for new items of the same product type. "
            "For a delivered order, return or exchange can be only done once. The agent "
            "needs to explain the exchange detail and ask for explicit user confirmation "
            "(yes/no) to proceed.",
            exchange_delivered_order_items,
            order_id=_ORDER_ID,
            item_ids=_ITEMS,
            new_item_ids=text(
                "array", "The new item ids, one for each of item_ids.", items={"type": "string"}
            ),
            payment_method_id=_PAYMENT,
        ),
        define(
            "modify_pending_order_address",
            "Modify the shipping address of a pending order. The agent needs to explain the "
            "modification detail and ask for explicit user confirmation (yes/no) to proceed.",
            modify_pending_order_address,
            order_id=_ORDER_ID,
            **_ADDRESS,
        ),
        define(
            "modify_pending_order_items",
            "Modify items in a pending order to new items of the same product type. For a "
            "pending order, this function can only be called once. The agent needs to "
            "explain the exchange detail and ask for explicit user confirmation (yes/no) "
            "to proceed.",
            modify_pending_order_items,
            order_id=_ORDER_ID,
            item_ids=_ITEMS,
            new_item_ids=text(
                "array", "The new item ids, one for each of item_ids.", items={"type": "string"}
            ),
            payment_method_id=_PAYMENT,
        ),
        define(
            "modify_pending_order_payment",
            "Modify the payment method of a pending order. The agent needs to explain the "
            "modification detail and ask for explicit user confirmation (yes/no) to proceed.",
            modify_pending_order_payment,
            order_id=_ORDER_ID,
            payment_method_id=_PAYMENT,
        ),
        define(
            "modify_user_address",
            "Modify the default address of a user. The agent needs to explain the "
            "modification detail and ask for explicit user confirmation (yes/no) to proceed.",
            modify_user_address,
            user_id=_USER_ID,
            **_ADDRESS,
        ),
        define(
            "return_delivered_order_items",
            "Return some items of a delivered order. The order status will be changed to "
            "'return requested'. The agent needs to explain the return detail and ask for "
            "explicit user confirmation (yes/no) to proceed. The refund goes to the original "
            "payment method or an existing gift card.",
            return_delivered_order_items,
            order_id=_ORDER_ID,
            item_ids=_ITEMS,
            payment_method_id=_PAYMENT,
        ),
    ]
