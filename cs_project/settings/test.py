"""Test settings: the same real services, on Redis databases the running demo never touches."""

from cs_project.config import celery_broker_url, redis_db_url
from cs_project.settings.base import *  # noqa: F403
from cs_project.settings.base import REDIS_URL

REDIS_DB_BROKER = 10
REDIS_DB_CACHE = 11
REDIS_DB_CHANNELS = 12

CACHES = {
    "default": {
        "BACKEND": "django_redis.cache.RedisCache",
        "LOCATION": redis_db_url(REDIS_URL, REDIS_DB_CACHE),
        "OPTIONS": {"SOCKET_CONNECT_TIMEOUT": 2, "SOCKET_TIMEOUT": 2},
        "KEY_PREFIX": "cs-test",
    }
}
CHANNEL_LAYERS = {
    "default": {
        "BACKEND": "channels_redis.core.RedisChannelLayer",
        "CONFIG": {"hosts": [redis_db_url(REDIS_URL, REDIS_DB_CHANNELS)], "capacity": 1000, "expiry": 60},
    }
}
CELERY_BROKER_URL = celery_broker_url(redis_db_url(REDIS_URL, REDIS_DB_BROKER))
CELERY_TASK_DEFAULT_QUEUE = "cs-test"

PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]

# Test-only specialists (a slow I/O one, a broken one), in the test process and its worker alike.
SPECIALIST_MODULES = ["tests.agents.plugins"]
