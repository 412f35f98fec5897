# ruff: noqa: E501  (a task file in the shape τ-bench publishes: long literal lines)
from tau_bench.types import Action, Task

TASKS_DEV = [
    Task(
        annotator="0",
        user_id="james_li_5688",
        instruction="You are James Li (zip 10083). Cancel your pending order #W2611340 because you no longer need it, and ask the total refund.",
        actions=[
            Action(
                name="find_user_id_by_name_zip",
                kwargs={"first_name": "James", "last_name": "Li", "zip": "10083"},
            ),
            Action(
                name="cancel_pending_order",
                kwargs={"order_id": "#W2611340", "reason": "no longer needed"},
            ),
        ],
        outputs=["536.65"],
    ),
    Task(
        annotator="0",
        user_id="james_li_5688",
        instruction="You are James Li (james.li4495@example.com). Return the water bottle of order #W4435622 to your gift card.",
        actions=[
            Action(
                name="return_delivered_order_items",
                kwargs={
                    "order_id": "#W4435622",
                    "item_ids": ["6469567736"],
                    "payment_method_id": "gift_card_1725971",
                },
            )
        ],
        outputs=[],
    ),
]
