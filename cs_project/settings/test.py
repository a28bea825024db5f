"""Test settings: the same real services, on Redis databases the running demo never touches."""

from cs_project.config import redis_services
from cs_project.settings.base import *  # noqa: F403
from cs_project.settings.base import REDIS_URL

_redis = redis_services(REDIS_URL, broker_db=10, cache_db=11, channels_db=12, key_prefix="cs-test")
CACHES = _redis["CACHES"]
CHANNEL_LAYERS = _redis["CHANNEL_LAYERS"]
CELERY_BROKER_URL = _redis["CELERY_BROKER_URL"]
CELERY_TASK_DEFAULT_QUEUE = "cs-test"
CELERY_INGEST_QUEUE = "ingest-test"

PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]

# Test-only specialists (a slow I/O one, a broken one), in the test process and its worker alike.
SPECIALIST_MODULES = ["tests.agents.plugins"]

# The tests' receivers listen on loopback, and retries come quickly enough to watch.
WEBHOOK_ALLOW_PRIVATE_URLS = True
WEBHOOK_RETRY_BASE_S = 0.2
WEBHOOK_MAX_ATTEMPTS = 3
WEBHOOK_DISABLE_AFTER = 2
WEBHOOK_SWEEP_GRACE_S = 2

# The engine's tests prove identity by account details (τ-bench's policy); the emailed code and the
# signed-only mode have their own tests (tests/agents/test_verification_modes.py).
CHAT_VERIFICATION = "details"

# Every test client comes from 127.0.0.1: the per-address limit on new chats has its own tests.
WIDGET_SESSIONS_PER_ADDRESS = 100_000
