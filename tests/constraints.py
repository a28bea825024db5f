from collections.abc import Callable
from typing import Any

import pytest
from django.db import IntegrityError, transaction


def assert_rejected(create: Callable[[], Any], constraint: str) -> None:
    """The database refuses the row, naming `constraint`, and the surrounding test goes on."""
    with pytest.raises(IntegrityError) as excinfo, transaction.atomic():
        create()
    assert constraint in str(excinfo.value)
