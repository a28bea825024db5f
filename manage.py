#!/usr/bin/env python
"""Django's command-line utility, printing configuration errors as one line."""

import os
import sys


def main() -> None:
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "cs_project.settings.base")
    from cs_project.config import ConfigError

    try:
        import django

        django.setup()
        from cs_project.preflight import services_check

        services_check()
        from django.core.management import execute_from_command_line

        execute_from_command_line(sys.argv)
    except ConfigError as exc:
        sys.exit(f"error: {exc}")


if __name__ == "__main__":
    main()
