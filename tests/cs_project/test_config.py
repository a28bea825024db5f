import pytest

from cs_project.config import (
    ConfigError,
    celery_broker_url,
    env_bool,
    env_choice,
    env_int,
    env_list,
    env_url,
    mask_url,
    parse_database_url,
    parse_redis_url,
    redis_db_url,
)


def test_parse_database_url_reads_every_part() -> None:
    config = parse_database_url("postgresql://shop:s%40cret@db.internal:6543/shopdb?sslmode=require")

    assert (config.name, config.user, config.password) == ("shopdb", "shop", "s@cret")
    assert (config.host, config.port) == ("db.internal", "6543")
    assert config.as_django(pool_max_size=12)["OPTIONS"] == {
        "connect_timeout": 5,
        "pool": {"min_size": 1, "max_size": 12, "timeout": 5, "reconnect_timeout": 0},
        "sslmode": "require",
    }


def test_parse_database_url_takes_a_socket_directory_from_host_parameter() -> None:
    config = parse_database_url("postgres://postgres@/cs?host=/run/pg")

    assert config.host == "/run/pg"
    assert config.url() == "postgresql://postgres@/cs?host=/run/pg"
    assert config.url(name="other") == "postgresql://postgres@/other?host=/run/pg"


@pytest.mark.parametrize(
    ("url", "message"),
    [
        ("mysql://user@host/db", "must start with postgresql://"),
        ("db.internal:5432/cs", "must start with postgresql://"),
        ("postgresql://host:notaport/cs", "malformed"),
        ("postgresql://host:5432", "must name one database"),
        ("postgresql://host:5432/a/b", "must name one database"),
        ("postgresql:///cs", "must name a host"),
    ],
)
def test_parse_database_url_rejects_malformed_urls_naming_the_variable(url: str, message: str) -> None:
    with pytest.raises(ConfigError) as excinfo:
        parse_database_url(url)

    assert str(excinfo.value).startswith("DATABASE_URL")
    assert message in str(excinfo.value)
    assert "\n" not in str(excinfo.value)


def test_parse_database_url_never_prints_the_password() -> None:
    with pytest.raises(ConfigError) as excinfo:
        parse_database_url("mysql://user:hunter2@host/db")

    assert "hunter2" not in str(excinfo.value)


@pytest.mark.parametrize(
    ("url", "expected"),
    [
        ("redis://127.0.0.1:6379", "redis://127.0.0.1:6379"),
        ("redis://:pw@cache:6380/3", "redis://:pw@cache:6380"),
        ("rediss://cache.example.com:6380/", "rediss://cache.example.com:6380"),
        ("unix:///run/redis.sock", "unix:///run/redis.sock"),
    ],
)
def test_parse_redis_url_normalises_to_the_server(url: str, expected: str) -> None:
    assert parse_redis_url(url) == expected


@pytest.mark.parametrize(
    ("url", "message"),
    [
        ("http://cache:6379", "must start with redis://"),
        ("redis://cache:port", "malformed"),
        ("redis://cache:6379/zero", "database must be a number"),
        ("redis:///0", "must name a host"),
    ],
)
def test_parse_redis_url_rejects_malformed_urls_naming_the_variable(url: str, message: str) -> None:
    with pytest.raises(ConfigError) as excinfo:
        parse_redis_url(url)

    assert str(excinfo.value).startswith("REDIS_URL")
    assert message in str(excinfo.value)


def test_redis_urls_per_database_and_for_the_broker() -> None:
    assert redis_db_url("redis://h:1", 2) == "redis://h:1/2"
    assert redis_db_url("unix:///s.sock", 2) == "unix:///s.sock?db=2"
    assert celery_broker_url("redis://h:1/0") == "redis://h:1/0"
    assert celery_broker_url("unix:///s.sock?db=3") == "redis+socket:///s.sock?virtual_host=3"


def test_env_helpers_parse_and_reject() -> None:
    env = {"FLAG": "yes", "OFF": "0", "BAD": "maybe", "HOSTS": "a.com, b.com,", "N": "12", "NX": "twelve"}

    assert env_bool("FLAG", False, env) is True
    assert env_bool("OFF", True, env) is False
    assert env_bool("MISSING", True, env) is True
    assert env_list("HOSTS", [], env) == ["a.com", "b.com"]
    assert env_int("N", 0, env) == 12
    with pytest.raises(ConfigError, match="^BAD must be true or false"):
        env_bool("BAD", False, env)
    with pytest.raises(ConfigError, match="^NX must be a whole number"):
        env_int("NX", 0, env)
    assert env_choice("MODE", "code", ("code", "signed", "details"), {"MODE": " Signed "}) == "signed"
    assert env_choice("MODE", "code", ("code", "signed", "details"), {}) == "code"
    with pytest.raises(ConfigError, match="^MODE must be one of code, signed, details"):
        env_choice("MODE", "code", ("code", "signed", "details"), {"MODE": "email"})


def test_env_url_accepts_http_and_rejects_the_rest() -> None:
    assert env_url("OPENAI_BASE_URL", {"OPENAI_BASE_URL": "http://127.0.0.1:9000/v1/"}) == "http://127.0.0.1:9000/v1"
    assert env_url("OPENAI_BASE_URL", {}) == ""
    with pytest.raises(ConfigError, match="^OPENAI_BASE_URL must be an http"):
        env_url("OPENAI_BASE_URL", {"OPENAI_BASE_URL": "ftp://models"})


def test_mask_url_hides_only_the_password() -> None:
    assert mask_url("redis://:secret@h:1/0") == "redis://:***@h:1/0"
    assert mask_url("postgresql://u@h/db") == "postgresql://u@h/db"


def test_a_time_zone_is_checked_and_named_when_wrong() -> None:
    from cs_project.config import env_time_zone

    assert env_time_zone("ANALYTICS_TIME_ZONE", "UTC", {"ANALYTICS_TIME_ZONE": "Asia/Shanghai"}) == "Asia/Shanghai"
    assert env_time_zone("ANALYTICS_TIME_ZONE", "UTC", {}) == "UTC"
    with pytest.raises(ConfigError, match="ANALYTICS_TIME_ZONE must be a time zone"):
        env_time_zone("ANALYTICS_TIME_ZONE", "UTC", {"ANALYTICS_TIME_ZONE": "Mars/Olympus"})
