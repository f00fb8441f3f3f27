"""Schemathesis hooks for the admin API run (SCHEMATHESIS_HOOKS=schemathesis_hooks).

Two rules of the API cannot be written in JSON Schema, and without these hooks every generated request would
either break one (a schema-valid request the server rightly refuses) or never reach the route's logic:

- `eventTime` may be at most the configured leeway ahead of the server clock (the description says so). A
  generated date-time in the future is moved back into the past by whole years, keeping its shape
  (fraction, offset) intact; a string that is not a date-time is left alone for negative tests.
- A sign-in's `authorizationCode` or `refreshToken` is only kept when Apple confirms it (the description says
  so), and the run has no Apple: a generated code or token would always be refused (422 apple_not_configured,
  apple_grant_refused). The credential members of a schema-valid `link` body are dropped, so the case tests
  the sign-in itself; a body that breaks the schema (a value of the wrong type or shape, a code with a refresh
  token) stays as generated, for negative tests. The token vault is tested against a
  stand-in Apple in AppleTokenVaultServeTests.
- `app` must be an app of the configuration. Half the generated cases use the configured app
  (LIFECYCLE_TEST_APP), so the account routes get past 404 and exercise the state machine.
"""

import datetime
import os
import re

import schemathesis
from hypothesis import strategies as st

APP = os.environ.get("LIFECYCLE_TEST_APP", "shop")
_YEAR = re.compile(r"^(\d{4})(-.*)$", re.DOTALL)


def _in_the_past(text):
    """The same text with its year replaced by a leap year at least four years back (so 29 February stays
    valid), when it is a date-time after now; anything else unchanged."""
    match = _YEAR.match(text)
    if not match:
        return text
    try:
        moment = datetime.datetime.fromisoformat(text)
    except ValueError:
        return text
    now = datetime.datetime.now(datetime.timezone.utc)
    if moment.tzinfo is None or moment <= now:
        return text
    year = now.year - 4
    return "%04d%s" % (year - year % 4, match.group(2))


_CREDENTIALS = ("authorizationCode", "refreshToken", "redirectUri", "clientId")


@schemathesis.hook
def map_body(ctx, body):
    if isinstance(body, dict) and isinstance(body.get("eventTime"), str):
        body = dict(body)
        body["eventTime"] = _in_the_past(body["eventTime"])
    if isinstance(body, dict) and _valid_credentials(body):
        body = {name: value for name, value in body.items() if name not in _CREDENTIALS}
    return body


_VALUE = re.compile(r"[!-~]{1,8192}\Z")


def _valid_credentials(body):
    """Whether the credential members of a body are what LinkRequest accepts: visible ASCII values, at most one
    of authorizationCode and refreshToken, redirectUri only with a code, clientId only with either."""
    present = [name for name in _CREDENTIALS if name in body]
    if not present:
        return False
    if not all(isinstance(body[name], str) and _VALUE.match(body[name]) for name in present):
        return False
    code, token = "authorizationCode" in body, "refreshToken" in body
    if code and token:
        return False
    if "redirectUri" in body and not code:
        return False
    return code or token


@schemathesis.hook
def flatmap_path_parameters(ctx, parameters):
    if isinstance(parameters, dict) and "app" in parameters:
        return st.sampled_from([parameters, {**parameters, "app": APP}])
    return st.just(parameters)
