from generators.naming import C_RESERVED, PYTHON_RESERVED, mangle


def test_reserved_words_get_one_trailing_underscore() -> None:
    assert mangle("and", PYTHON_RESERVED) == "and_"
    assert mangle("lambda", PYTHON_RESERVED) == "lambda_"
    assert mangle("match", PYTHON_RESERVED) == "match_"  # soft keyword
    assert mangle("default", C_RESERVED) == "default_"
    assert mangle("and", C_RESERVED) == "and"
    assert mangle("add", PYTHON_RESERVED) == "add"
