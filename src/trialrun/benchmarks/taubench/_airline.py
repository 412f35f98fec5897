"""The airline domain's tools (tables `flights`, `reservations`, `users`).

Effects as τ-bench documents them: a booking takes the first free id of HATHAT, HATHAU,
HATHAV, prices each flight at the cabin's price of that date, adds 30 per passenger for
insurance and 50 per non-free bag, and must be paid exactly (gift cards and certificates
within their balance; a certificate is used up, a gift card debited). Seat counts are not
changed. A flight change keeps the price of an unchanged flight in the same cabin and
charges (or refunds) the difference; certificates cannot pay changes. A cancellation
appends a refund (negative amount) per payment and marks the reservation cancelled.
"""

from __future__ import annotations

from datetime import date, timedelta
from typing import Any

from trialrun.benchmarks.taubench._errors import ToolFailure
from trialrun.benchmarks.taubench._shared import shared_tools
from trialrun.benchmarks.taubench._tooling import (
    DomainTool,
    Tables,
    as_json,
    define,
    object_list,
    record,
    text,
)

CABINS = ["basic_economy", "economy", "business"]
NEW_RESERVATION_IDS = ("HATHAT", "HATHAU", "HATHAV")
NEW_CERTIFICATE_IDS = ("certificate_3221322", "certificate_3221323", "certificate_3221324")
BOOKED_AT = "2024-05-15T15:00:00"
INSURANCE_PER_PASSENGER = 30
FEE_PER_BAG = 50
AIRPORTS = {
    "SFO": "San Francisco",
    "JFK": "New York",
    "LAX": "Los Angeles",
    "ORD": "Chicago",
    "DFW": "Dallas",
    "DEN": "Denver",
    "SEA": "Seattle",
    "ATL": "Atlanta",
    "MIA": "Miami",
    "BOS": "Boston",
    "PHX": "Phoenix",
    "IAH": "Houston",
    "LAS": "Las Vegas",
    "MCO": "Orlando",
    "EWR": "Newark",
    "CLT": "Charlotte",
    "MSP": "Minneapolis",
    "DTW": "Detroit",
    "PHL": "Philadelphia",
    "LGA": "LaGuardia",
}
PASSENGER_KEYS = ("first_name", "last_name", "dob")


def _user(tables: Tables, user_id: str) -> dict[str, Any]:
    return record(tables["users"].get(user_id), "user not found")


def _reservation(tables: Tables, reservation_id: str) -> dict[str, Any]:
    return record(tables["reservations"].get(reservation_id), "reservation not found")


def _bookable(tables: Tables, number: str, day: str, cabin: str, seats: int) -> dict[str, Any]:
    """The flight's record, checked: flies that day, available, enough seats in the cabin."""
    flight = record(tables["flights"].get(number), f"flight {number} not found")
    dated = flight["dates"].get(day) if isinstance(day, str) else None
    if dated is None:
        raise ToolFailure(f"flight {number} not found on date {day}")
    if dated.get("status") != "available":
        raise ToolFailure(f"flight {number} not available on date {day}")
    if dated["available_seats"][cabin] < seats:
        raise ToolFailure(f"not enough seats on flight {number}")
    return flight


def _payment_method(user: dict[str, Any], payment_id: str) -> dict[str, Any]:
    return record(user["payment_methods"].get(payment_id), f"payment method {payment_id} not found")


def get_user_details(tables: Tables, user_id: str) -> str:
    return as_json(_user(tables, user_id))


def get_reservation_details(tables: Tables, reservation_id: str) -> str:
    return as_json(_reservation(tables, reservation_id))


def list_all_airports(tables: Tables) -> str:
    return as_json(AIRPORTS)


def _on_date(flight: dict[str, Any], day: str) -> dict[str, Any]:
    """A search result: the flight without its calendar, with that date's record."""
    found = {k: v for k, v in flight.items() if k != "dates"}
    found.update(flight["dates"][day])
    return found


def _available(flight: dict[str, Any], day: str) -> bool:
    dated = flight["dates"].get(day)
    return dated is not None and dated.get("status") == "available"


def search_direct_flight(tables: Tables, origin: str, destination: str, date: str) -> str:
    found = [
        _on_date(f, date)
        for f in tables["flights"].values()
        if f["origin"] == origin and f["destination"] == destination and _available(f, date)
    ]
    return as_json(found)


def _next_day(day: str) -> str:
    try:
        return (date.fromisoformat(day) + timedelta(days=1)).isoformat()
    except ValueError:
        return day


def search_onestop_flight(tables: Tables, origin: str, destination: str, date: str) -> str:
    flights = tables["flights"].values()
    found = []
    for first in flights:
        if first["origin"] != origin or not _available(first, date):
            continue
        arrival = first["scheduled_arrival_time_est"]
        second_day = _next_day(date) if "+1" in arrival else date
        for second in flights:
            if second["origin"] != first["destination"] or second["destination"] != destination:
                continue
            if arrival > second["scheduled_departure_time_est"]:
                continue
            if not _available(second, second_day):
                continue
            legs = [{**_on_date(first, date), "date": date}]
            legs.append({**_on_date(second, second_day), "date": second_day})
            found.append(legs)
    return as_json(found)


def _check_payments(user: dict[str, Any], payments: list[dict[str, Any]]) -> None:
    for payment in payments:
        method = _payment_method(user, payment["payment_id"])
        limited = method["source"] in ("gift_card", "certificate")
        if limited and method["amount"] < payment["amount"]:
            raise ToolFailure(f"not enough balance in payment method {payment['payment_id']}")


def book_reservation(
    tables: Tables,
    user_id: str,
    origin: str,
    destination: str,
    flight_type: str,
    cabin: str,
    flights: list[dict[str, Any]],
    passengers: list[dict[str, Any]],
    payment_methods: list[dict[str, Any]],
    total_baggages: int,
    nonfree_baggages: int,
    insurance: str,
) -> str:
    user = _user(tables, user_id)
    reservations = tables["reservations"]
    free = [i for i in NEW_RESERVATION_IDS if i not in reservations]
    if not free:
        raise ToolFailure("no reservation id left for a new booking")
    legs = [dict(f) for f in object_list(flights, ("flight_number", "date"), "flights")]
    object_list(passengers, PASSENGER_KEYS, "passengers")
    payments = object_list(
        payment_methods, ("payment_id", "amount"), "payment_methods", numbers=("amount",)
    )
    total = 0
    for leg in legs:
        flight = _bookable(tables, leg["flight_number"], leg["date"], cabin, len(passengers))
        leg["price"] = flight["dates"][leg["date"]]["prices"][cabin]
        leg["origin"] = flight["origin"]
        leg["destination"] = flight["destination"]
        total += leg["price"] * len(passengers)
    if insurance == "yes":
        total += INSURANCE_PER_PASSENGER * len(passengers)
    total += FEE_PER_BAG * nonfree_baggages
    _check_payments(user, payments)
    paid = sum(p["amount"] for p in payments)
    if paid != total:
        raise ToolFailure(
            f"payment amount does not add up, total price is {total}, but paid {paid}"
        )
    reservation = {
        "reservation_id": free[0],
        "user_id": user_id,
        "origin": origin,
        "destination": destination,
        "flight_type": flight_type,
        "cabin": cabin,
        "flights": legs,
        "passengers": passengers,
        "payment_history": payments,
        "created_at": BOOKED_AT,
        "total_baggages": total_baggages,
        "nonfree_baggages": nonfree_baggages,
        "insurance": insurance,
    }
    for payment in payments:
        method = user["payment_methods"][payment["payment_id"]]
        if method["source"] == "gift_card":
            method["amount"] -= payment["amount"]
        elif method["source"] == "certificate":
            del user["payment_methods"][payment["payment_id"]]
    reservations[free[0]] = reservation
    user["reservations"].append(free[0])
    return as_json(reservation)


def cancel_reservation(tables: Tables, reservation_id: str) -> str:
    reservation = _reservation(tables, reservation_id)
    refunds = [
        {"payment_id": p["payment_id"], "amount": -p["amount"]}
        for p in reservation["payment_history"]
    ]
    reservation["payment_history"].extend(refunds)
    reservation["status"] = "cancelled"
    return as_json(reservation)


def _change_method(tables: Tables, reservation: dict[str, Any], payment_id: str, due: Any) -> Any:
    """The payment method paying a change, checked (no certificate; gift card balance)."""
    user = tables["users"][reservation["user_id"]]
    method = user["payment_methods"].get(payment_id)
    if method is None:
        raise ToolFailure("payment method not found")
    if method["source"] == "certificate":
        raise ToolFailure("certificate cannot be used to update reservation")
    if method["source"] == "gift_card" and method["amount"] < due:
        raise ToolFailure("gift card balance is not enough")
    return method


def _charge(reservation: dict[str, Any], method: dict[str, Any], payment_id: str, due: Any) -> None:
    if method["source"] == "gift_card":
        method["amount"] -= due
    if due != 0:
        reservation["payment_history"].append({"payment_id": payment_id, "amount": due})


def update_reservation_flights(
    tables: Tables, reservation_id: str, cabin: str, flights: list[dict[str, Any]], payment_id: str
) -> str:
    reservation = _reservation(tables, reservation_id)
    travellers = len(reservation["passengers"])
    legs = [dict(f) for f in object_list(flights, ("flight_number", "date"), "flights")]
    due = 0
    for leg in legs:
        kept = None
        if cabin == reservation["cabin"]:
            kept = next(
                (
                    old
                    for old in reservation["flights"]
                    if old["flight_number"] == leg["flight_number"] and old["date"] == leg["date"]
                ),
                None,
            )
        if kept is not None:
            leg.update(price=kept["price"], origin=kept["origin"], destination=kept["destination"])
        else:
            flight = _bookable(tables, leg["flight_number"], leg["date"], cabin, travellers)
            leg["price"] = flight["dates"][leg["date"]]["prices"][cabin]
            leg["origin"] = flight["origin"]
            leg["destination"] = flight["destination"]
        due += leg["price"] * travellers
    due -= sum(old["price"] for old in reservation["flights"]) * travellers
    method = _change_method(tables, reservation, payment_id, due)
    _charge(reservation, method, payment_id, due)
    reservation["flights"] = legs
    return as_json(reservation)


def update_reservation_passengers(
    tables: Tables, reservation_id: str, passengers: list[dict[str, Any]]
) -> str:
    reservation = _reservation(tables, reservation_id)
    object_list(passengers, PASSENGER_KEYS, "passengers")
    if len(passengers) != len(reservation["passengers"]):
        raise ToolFailure("number of passengers does not match")
    reservation["passengers"] = passengers
    return as_json(reservation)


def update_reservation_baggages(
    tables: Tables,
    reservation_id: str,
    total_baggages: int,
    nonfree_baggages: int,
    payment_id: str,
) -> str:
    reservation = _reservation(tables, reservation_id)
    due = FEE_PER_BAG * max(0, nonfree_baggages - reservation["nonfree_baggages"])
    method = _change_method(tables, reservation, payment_id, due)
    reservation["total_baggages"] = total_baggages
    reservation["nonfree_baggages"] = nonfree_baggages
    _charge(reservation, method, payment_id, due)
    return as_json(reservation)


def send_certificate(tables: Tables, user_id: str, amount: float) -> str:
    user = _user(tables, user_id)
    methods = user["payment_methods"]
    free = [i for i in NEW_CERTIFICATE_IDS if i not in methods]
    if not free:
        raise ToolFailure("no certificate id left for this user")
    methods[free[0]] = {"source": "certificate", "amount": amount, "id": free[0]}
    return f"Certificate {free[0]} added to user {user_id} with amount {amount}."


_RESERVATION_ID = text("string", "The reservation ID, such as 'ZFA04Y'.")
_USER_ID = text("string", "The ID of the user, such as 'sara_doe_496'.")
_PAYMENT_ID = text(
    "string",
    "The payment id stored in user profile, such as 'credit_card_7815826', "
    "'gift_card_7815826', 'certificate_7815826'.",
)
_CABIN = text("string", enum=CABINS)
_FLIGHT_ITEM = {
    "type": "object",
    "properties": {
        "flight_number": text("string", "Flight number, such as 'HAT001'."),
        "date": text("string", "The date of the flight, 'YYYY-MM-DD', such as '2024-05-01'."),
    },
    "required": ["flight_number", "date"],
}
_PASSENGER_ITEM = {
    "type": "object",
    "properties": {
        "first_name": text("string", "The first name of the passenger, such as 'Noah'."),
        "last_name": text("string", "The last name of the passenger, such as 'Brown'."),
        "dob": text("string", "Date of birth, 'YYYY-MM-DD', such as '1990-01-01'."),
    },
    "required": list(PASSENGER_KEYS),
}
_SEARCH = {
    "origin": text("string", "The origin city airport in three letters, such as 'JFK'."),
    "destination": text("string", "The destination airport in three letters, such as 'LAX'."),
    "date": text("string", "The date of the flight, 'YYYY-MM-DD', such as '2024-05-01'."),
}


def airline_tools() -> list[DomainTool]:
    return [
        define(
            "book_reservation",
            "Book a reservation.",
            book_reservation,
            user_id=_USER_ID,
            origin=text("string", "The IATA code for the origin city, such as 'SFO'."),
            destination=text("string", "The IATA code for the destination city, such as 'JFK'."),
            flight_type=text("string", enum=["one_way", "round_trip"]),
            cabin=_CABIN,
            flights=text("array", "Each flight of the reservation.", items=_FLIGHT_ITEM),
            passengers=text("array", "Each passenger.", items=_PASSENGER_ITEM),
            payment_methods=text(
                "array",
                "Each payment: its payment id from the user profile and the amount.",
                items={
                    "type": "object",
                    "properties": {"payment_id": _PAYMENT_ID, "amount": text("number")},
                    "required": ["payment_id", "amount"],
                },
            ),
            total_baggages=text("integer", "The total number of bags in the reservation."),
            nonfree_baggages=text("integer", "The number of non-free bags in the reservation."),
            insurance=text("string", enum=["yes", "no"]),
        ),
        *shared_tools(),
        define("cancel_reservation", "Cancel the whole reservation.", cancel_reservation,
               reservation_id=_RESERVATION_ID),
        define("get_reservation_details", "Get the details of a reservation.",
               get_reservation_details, reservation_id=_RESERVATION_ID),
        define("get_user_details", "Get the details of an user, including their reservations.",
               get_user_details, user_id=_USER_ID),
        define("list_all_airports", "List all airports and their cities.", list_all_airports),
        define("search_direct_flight",
               "Search direct flights between two cities on a specific date.",
               search_direct_flight, **_SEARCH),
        define("search_onestop_flight",
               "Search one-stop flights between two cities on a specific date.",
               search_onestop_flight, **_SEARCH),
        define("send_certificate", "Send a certificate to a user. Be careful!", send_certificate,
               user_id=_USER_ID, amount=text("number", "Certificate amount to send.")),
        define(
            "update_reservation_baggages",
            "Update the baggage information of a reservation.",
            update_reservation_baggages,
            reservation_id=_RESERVATION_ID,
            total_baggages=text("integer", "The updated total number of bags."),
            nonfree_baggages=text("integer", "The updated number of non-free bags."),
            payment_id=_PAYMENT_ID,
        ),
        define(
            "update_reservation_flights",
            "Update the flight information of a reservation.",
            update_reservation_flights,
            reservation_id=_RESERVATION_ID,
            cabin=_CABIN,
            flights=text(
                "array",
                "Every flight of the ENTIRE new reservation, unchanged segments included.",
                items=_FLIGHT_ITEM,
            ),
            payment_id=_PAYMENT_ID,
        ),
        define(
            "update_reservation_passengers",
            "Update the passenger information of a reservation.",
            update_reservation_passengers,
            reservation_id=_RESERVATION_ID,
            passengers=text("array", "Each passenger.", items=_PASSENGER_ITEM),
        ),
    ]
