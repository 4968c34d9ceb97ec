import pytest
from calc import add, divide, multiply


def test_add() -> None:
    assert add(2, 3) == 5


def test_multiply() -> None:
    assert multiply(4, 2.5) == 10


def test_divide() -> None:
    assert divide(9, 3) == 3


def test_divide_by_zero_says_why() -> None:
    with pytest.raises(ZeroDivisionError, match="cannot divide by zero"):
        divide(1, 0)
