# ruff: noqa: E501  (a task file in the shape τ-bench publishes: long literal lines)
from tau_bench.types import Action, Task

TASKS = [
    Task(
        annotator="0",
        user_id="mia_li_3668",
        instruction="Your user id is mia_li_3668. You want to fly from New York to Seattle on May 20 (one way), economy, with no bags and no insurance. Pay with your certificate.",
        actions=[
            Action(
                name="book_reservation",
                kwargs={
                    "user_id": "mia_li_3668",
                    "origin": "JFK",
                    "destination": "SEA",
                    "flight_type": "one_way",
                    "cabin": "economy",
                    "flights": [{"flight_number": "HAT001", "date": "2024-05-20"}],
                    "passengers": [
                        {"first_name": "Mia", "last_name": "Li", "dob": "1990-04-05"}
                    ],
                    "payment_methods": [
                        {"payment_id": "certificate_7504069", "amount": 200}
                    ],
                    "total_baggages": 0,
                    "nonfree_baggages": 0,
                    "insurance": "no",
                },
            )
        ],
        outputs=[],
    ),
    Task(
        annotator="0",
        user_id="mia_li_3668",
        instruction="Your user id is mia_li_3668. Cancel your reservation ZFA04Y and ask how much will be refunded.",
        actions=[
            Action(name="get_reservation_details", kwargs={"reservation_id": "ZFA04Y"}),
            Action(name="cancel_reservation", kwargs={"reservation_id": "ZFA04Y"}),
        ],
        outputs=["210"],
    ),
    Task(
        annotator="1",
        user_id="mia_li_3668",
        instruction="Your user id is mia_li_3668. Add one checked bag to reservation ZFA04Y, paid with your gift card.",
        actions=[
            Action(
                name="update_reservation_baggages",
                kwargs={
                    "reservation_id": "ZFA04Y",
                    "total_baggages": 2,
                    "nonfree_baggages": 1,
                    "payment_id": "gift_card_1027364",
                },
            ),
            Action(name="transfer_to_human_agents", kwargs={"summary": "bag added"}),
        ],
        outputs=[],
    ),
]
