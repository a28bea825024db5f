"""Seed the whole demo: store, staff login, canned responses."""

from django.db import transaction

from agents.store.demo import store_seed_demo
from tickets.demo import canned_responses_seed, demo_staff_ensure


def demo_seed(*, reset: bool = False) -> None:
    with transaction.atomic():
        store_seed_demo(reset=reset)
        demo_staff_ensure()
        canned_responses_seed()
