"""One factory per model the tests build rows of."""

from __future__ import annotations

from datetime import timedelta
from decimal import Decimal

import factory
from django.utils import timezone

from conversations.models import Conversation, Customer, Message
from knowledge.models import Document, KnowledgeBase
from stores.builtin.models import Order, PaymentMethod, Product, Variant
from tickets.models import Ticket


class CustomerFactory(factory.django.DjangoModelFactory[Customer]):
    class Meta:
        model = Customer

    external_id = factory.Sequence(lambda n: f"customer_{n}")
    name = factory.Faker("name")
    email = factory.LazyAttribute(lambda c: f"{c.external_id}@example.com")


class ConversationFactory(factory.django.DjangoModelFactory[Conversation]):
    class Meta:
        model = Conversation

    customer = factory.SubFactory(CustomerFactory)


class MessageFactory(factory.django.DjangoModelFactory[Message]):
    class Meta:
        model = Message

    conversation = factory.SubFactory(ConversationFactory)
    sender = "customer"
    text = "Where is my order?"


class ProductFactory(factory.django.DjangoModelFactory[Product]):
    class Meta:
        model = Product

    external_id = factory.Sequence(lambda n: f"P{n:05d}")
    name = factory.Sequence(lambda n: f"Phone {n}")
    category = "phone"


class VariantFactory(factory.django.DjangoModelFactory[Variant]):
    class Meta:
        model = Variant

    external_id = factory.Sequence(lambda n: f"V{n:05d}")
    product = factory.SubFactory(ProductFactory)
    options = {"color": "black"}
    price = Decimal("100.00")
    stock = 10


class PaymentMethodFactory(factory.django.DjangoModelFactory[PaymentMethod]):
    class Meta:
        model = PaymentMethod

    external_id = factory.Sequence(lambda n: f"paypal_{n}")
    customer = factory.SubFactory(CustomerFactory)
    kind = "paypal"


class OrderFactory(factory.django.DjangoModelFactory[Order]):
    class Meta:
        model = Order

    external_id = factory.Sequence(lambda n: f"#O{n:06d}")
    customer = factory.SubFactory(CustomerFactory)
    status = "pending"
    address = {
        "address1": "1 Main St",
        "address2": "",
        "city": "Austin",
        "state": "TX",
        "country": "USA",
        "zip": "78701",
    }
    placed_at = factory.LazyFunction(lambda: timezone.now() - timedelta(days=1))


class TicketFactory(factory.django.DjangoModelFactory[Ticket]):
    class Meta:
        model = Ticket

    kind = "general"
    subject = "Help needed"


class KnowledgeBaseFactory(factory.django.DjangoModelFactory[KnowledgeBase]):
    class Meta:
        model = KnowledgeBase

    name = factory.Sequence(lambda n: f"kb-{n}")


class DocumentFactory(factory.django.DjangoModelFactory[Document]):
    class Meta:
        model = Document

    knowledge_base = factory.SubFactory(KnowledgeBaseFactory)
    source = factory.Sequence(lambda n: f"docs/page-{n}.md")
    title = "Return policy"
    checksum = factory.Sequence(lambda n: f"{n:064x}")
