from django.contrib import admin

from stores.builtin.models import (
    Address,
    Fulfillment,
    Order,
    OrderItem,
    PaymentMethod,
    PaymentTransaction,
    Product,
    StoreProfile,
    SubsidyRule,
    TrackingEvent,
    Variant,
)


@admin.register(StoreProfile)
class StoreProfileAdmin(admin.ModelAdmin):
    """The store's name and currency: one row, edited in place (never added twice or deleted)."""

    list_display = ["name", "currency", "id"]
    search_fields = ["name", "currency"]

    def has_add_permission(self, request: object) -> bool:
        return not StoreProfile.objects.exists()

    def has_delete_permission(self, request: object, obj: object = None) -> bool:
        return False


@admin.register(Address)
class AddressAdmin(admin.ModelAdmin):
    list_display = ["customer", "address1", "city", "state", "zip", "country", "is_default"]
    list_filter = ["is_default", "country", "state"]
    search_fields = ["customer__external_id", "address1", "city", "zip"]
    raw_id_fields = ["customer"]


@admin.register(PaymentMethod)
class PaymentMethodAdmin(admin.ModelAdmin):
    list_display = ["external_id", "customer", "kind", "brand", "last_four", "balance"]
    list_filter = ["kind", "brand"]
    search_fields = ["external_id", "customer__external_id", "last_four"]
    raw_id_fields = ["customer"]


class VariantInline(admin.TabularInline):
    model = Variant
    fields = ["external_id", "options", "price", "stock", "available"]
    extra = 0


@admin.register(Product)
class ProductAdmin(admin.ModelAdmin):
    list_display = ["name", "name_zh", "external_id", "category", "currency"]
    list_filter = ["category", "currency"]
    search_fields = ["name", "name_zh", "external_id", "aliases"]
    inlines = [VariantInline]


@admin.register(Variant)
class VariantAdmin(admin.ModelAdmin):
    list_display = ["external_id", "product", "options", "price", "stock", "available"]
    list_filter = ["available", "product__category"]
    search_fields = ["external_id", "product__name", "product__name_zh"]
    list_select_related = ["product"]
    raw_id_fields = ["product"]


class OrderItemInline(admin.TabularInline):
    model = OrderItem
    fields = ["variant", "name", "options", "price"]
    raw_id_fields = ["variant", "product"]
    extra = 0


class FulfillmentInline(admin.TabularInline):
    model = Fulfillment
    fields = ["tracking_ids", "item_ids", "carrier", "shipped_at", "estimated_arrival"]
    extra = 0
    show_change_link = True


class PaymentTransactionInline(admin.TabularInline):
    model = PaymentTransaction
    fields = ["kind", "amount", "payment_method"]
    raw_id_fields = ["payment_method"]
    extra = 0


@admin.register(Order)
class OrderAdmin(admin.ModelAdmin):
    list_display = ["external_id", "customer", "status", "currency", "placed_at", "delivered_at"]
    list_filter = ["status", "currency"]
    search_fields = ["external_id", "customer__external_id", "customer__email", "fulfillments__tracking_ids"]
    list_select_related = ["customer"]
    raw_id_fields = ["customer"]
    date_hierarchy = "placed_at"
    inlines = [OrderItemInline, FulfillmentInline, PaymentTransactionInline]


@admin.register(OrderItem)
class OrderItemAdmin(admin.ModelAdmin):
    list_display = ["order", "name", "variant", "price"]
    search_fields = ["order__external_id", "name", "variant__external_id"]
    raw_id_fields = ["order", "variant", "product"]
    list_select_related = ["order", "variant__product"]


class TrackingEventInline(admin.TabularInline):
    model = TrackingEvent
    fields = ["occurred_at", "status", "location", "description", "description_zh"]
    extra = 0


@admin.register(Fulfillment)
class FulfillmentAdmin(admin.ModelAdmin):
    list_display = ["order", "tracking_list", "carrier", "shipped_at", "estimated_arrival"]
    list_filter = ["carrier"]
    search_fields = ["order__external_id", "tracking_ids"]
    raw_id_fields = ["order"]
    list_select_related = ["order"]
    inlines = [TrackingEventInline]

    @admin.display(description="tracking ids")
    def tracking_list(self, obj: Fulfillment) -> str:
        return ", ".join(obj.tracking_ids)


@admin.register(TrackingEvent)
class TrackingEventAdmin(admin.ModelAdmin):
    list_display = ["fulfillment", "occurred_at", "status", "location"]
    list_filter = ["status"]
    search_fields = ["fulfillment__tracking_ids", "fulfillment__order__external_id", "location"]
    raw_id_fields = ["fulfillment"]


@admin.register(PaymentTransaction)
class PaymentTransactionAdmin(admin.ModelAdmin):
    list_display = ["order", "kind", "amount", "payment_method", "created_at"]
    list_filter = ["kind", "payment_method__kind"]
    search_fields = ["order__external_id", "payment_method__external_id"]
    raw_id_fields = ["order", "payment_method"]
    list_select_related = ["order", "payment_method"]


@admin.register(SubsidyRule)
class SubsidyRuleAdmin(admin.ModelAdmin):
    list_display = ["name", "name_zh", "category", "rate", "max_amount", "max_price", "active", "starts_on", "ends_on"]
    list_filter = ["active", "category"]
    search_fields = ["name", "name_zh", "category"]
