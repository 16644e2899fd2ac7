"""What Spark's lexer and parser refuse (or read otherwise) in a statement's tokens, before
sqlglot's parser normalizes them away: the type names of a cast, ``ARRAY[...]``, ``IN [...]``,
and the ``TABLE t`` statement.

sqlglot's tokenizer reads ``INT4``, ``TEXT`` or ``DOUBLE PRECISION`` as the types it knows
(``INT``, ``STRING``, ``DOUBLE``), so only the tokens still tell what the user wrote; Spark 4.3's
parser takes its own list of names only (``primitiveType`` in ``SqlBaseParser.g4``) and raises
``UNSUPPORTED_DATATYPE`` for any other identifier (each measured on PySpark 4.3).
"""
from __future__ import annotations

from sqlglot.tokens import Token, TokenType

from vpush.optimizer.errors import OptimizeError
from vpush.optimizer.variant_types import MAX_DECIMAL_PRECISION

SPARK_TYPE_NAMES = frozenset({
    "BOOLEAN", "TINYINT", "BYTE", "SMALLINT", "SHORT", "INT", "INTEGER", "BIGINT", "LONG", "FLOAT", "REAL",
    "DOUBLE", "DATE", "TIMESTAMP", "TIMESTAMP_NTZ", "TIMESTAMP_LTZ", "STRING", "CHARACTER", "CHAR", "VARCHAR",
    "BINARY", "DECIMAL", "DEC", "NUMERIC", "VOID", "INTERVAL", "VARIANT", "TIME", "ARRAY", "STRUCT", "MAP",
})
"""The type names Spark 4.3's parser takes (any case)."""

_SIZED = frozenset({"CHARACTER", "CHAR", "VARCHAR"})
_WITH_ARGUMENTS = frozenset({"DECIMAL", "DEC", "NUMERIC", "TIME"}) | _SIZED
_CAST_WORDS = frozenset({"CAST", "TRY_CAST"})
_DECIMALS = frozenset({"DECIMAL", "DEC", "NUMERIC"})


def _error(message: str, error_class: str) -> OptimizeError:
    return OptimizeError(message, error_class=error_class)


def _closing(tokens: list[Token], start: int, opening: TokenType, closing: TokenType) -> int:
    """The index of the token that closes the one at ``start`` (or past the end)."""
    depth = 0
    for index in range(start, len(tokens)):
        kind = tokens[index].token_type
        if kind == opening:
            depth += 1
        elif kind == closing:
            depth -= 1
            if depth == 0:
                return index
    return len(tokens)


def _check_type(tokens: list[Token], start: int, end: int) -> int:
    """Check the type written from ``tokens[start]`` (not past ``end``) as Spark's parser does;
    return the index just after it."""
    if start >= end:
        return start
    token = tokens[start]
    word = token.text.upper()
    if " " in word:  # sqlglot's one token for DOUBLE PRECISION, CHARACTER VARYING, ...
        raise _error(f"Spark's parser refuses the type {token.text}", "PARSE_SYNTAX_ERROR")
    if word not in SPARK_TYPE_NAMES:
        raise _error(f'Unsupported data type "{word}"', "UNSUPPORTED_DATATYPE")
    index = start + 1
    after = tokens[index] if index < end else None
    if word in _SIZED and (after is None or after.token_type != TokenType.L_PAREN):
        raise _error(f"{word} needs a length: {word}(n)", "DATATYPE_MISSING_SIZE")
    if after is not None and after.token_type == TokenType.L_PAREN:
        if word not in _WITH_ARGUMENTS:
            raise _error(f'Unsupported data type "{word}"', "UNSUPPORTED_DATATYPE")
        first = tokens[index + 1] if index + 1 < end else None
        if word in _DECIMALS and first is not None and first.token_type == TokenType.NUMBER and first.text.isdigit():
            if int(first.text) > MAX_DECIMAL_PRECISION:  # ::decimal(40,2) (sqlglot keeps it, DuckDB refuses it)
                raise _error(f"Decimal precision {int(first.text)} exceeds max precision {MAX_DECIMAL_PRECISION}.",
                             "DECIMAL_PRECISION_EXCEEDS_MAX_PRECISION")
        return _closing(tokens, index, TokenType.L_PAREN, TokenType.R_PAREN) + 1
    if word == "INTERVAL":  # its fields: DAY, HOUR TO SECOND, ...
        while index < end and tokens[index].token_type not in (TokenType.COMMA, TokenType.GT, TokenType.R_PAREN):
            index += 1
        return index
    if word in ("ARRAY", "MAP", "STRUCT") and after is not None and after.token_type == TokenType.LT:
        close = _closing(tokens, index, TokenType.LT, TokenType.GT)
        index += 1
        while index < close:
            if word == "STRUCT":
                index += 1  # the field's name
                if index < close and tokens[index].token_type == TokenType.COLON:
                    index += 1
            index = _check_type(tokens, index, close)
            # a field's NOT NULL or COMMENT '...', up to the next field
            while index < close and tokens[index].token_type != TokenType.COMMA:
                index += 1
            index += 1
        return close + 1
    if word == "STRING" and after is not None and after.text.upper() == "COLLATE":
        return index + 2
    return index


def _check_cast_types(tokens: list[Token], sql: str) -> None:
    for index, token in enumerate(tokens):
        # sqlglot's tokenizer writes a number's type suffix (1L) as a DCOLON token too
        if token.token_type == TokenType.DCOLON and sql[token.start : token.end + 1] == "::":
            end = index + 1
            if end < len(tokens):
                _check_type(tokens, end, len(tokens))
            continue
        if (
            token.text.upper() not in _CAST_WORDS
            or index + 1 >= len(tokens)
            or tokens[index + 1].token_type != TokenType.L_PAREN
        ):
            continue
        close = _closing(tokens, index + 1, TokenType.L_PAREN, TokenType.R_PAREN)
        depth = 0
        for at in range(index + 1, close):
            kind = tokens[at].token_type
            depth += kind == TokenType.L_PAREN
            depth -= kind == TokenType.R_PAREN
            if depth == 1 and kind == TokenType.ALIAS:
                after = _check_type(tokens, at + 1, close)
                if after < close:
                    raise _error(f"Spark's parser refuses {tokens[after].text!r} after the type of a cast",
                                 "PARSE_SYNTAX_ERROR")
                break


def check_spark_tokens(tokens: list[Token], sql: str) -> None:
    """Raise Spark's error for what its parser refuses in ``tokens`` and sqlglot's takes.

    Example:
        >>> from vpush.optimizer.dialect import VpushSpark
        >>> check_spark_tokens(VpushSpark().tokenize("SELECT CAST(x AS INT4)"), "SELECT CAST(x AS INT4)")
        Traceback (most recent call last):
        ...
        vpush.optimizer.errors.OptimizeError: [UNSUPPORTED_DATATYPE] Unsupported data type "INT4"
    """
    for token, after in zip(tokens, tokens[1:]):
        if after.token_type == TokenType.L_BRACKET and token.token_type in (TokenType.IN, TokenType.ARRAY):
            raise _error(f"Spark's parser refuses {token.text.upper()} [...]", "PARSE_SYNTAX_ERROR")
    _check_cast_types(tokens, sql)


def table_statement(tokens: list[Token]) -> str | None:
    """The table named by a ``TABLE t`` statement (Spark's ``SELECT * FROM t``), or None.

    Example:
        >>> from vpush.optimizer.dialect import VpushSpark
        >>> table_statement(VpushSpark().tokenize("TABLE `my t`"))
        'my t'
    """
    words = [t for t in tokens if t.token_type != TokenType.SEMICOLON]
    if len(words) == 2 and words[0].token_type == TokenType.TABLE and words[1].token_type in (
        TokenType.VAR, TokenType.IDENTIFIER,
    ):
        return words[1].text
    return None
