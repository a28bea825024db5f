from celery import shared_task

from webhooks.services import webhook_deliver, webhook_deliveries_sweep


@shared_task(ignore_result=True)
def webhook_deliver_task(delivery_id: int) -> None:
    webhook_deliver(delivery_id)


@shared_task(ignore_result=True)
def webhook_sweep_task() -> None:
    webhook_deliveries_sweep()
