"""Schemathesis hooks for the admin API run (SCHEMATHESIS_HOOKS=schemathesis_hooks).

Two rules of the API cannot be written in JSON Schema, and without these hooks every generated request would
either break one (a schema-valid request the server rightly refuses) or never reach the route's logic:

- `eventTime` may be at most the configured leeway ahead of the server clock (the description says so). A
  generated date-time in the future is moved back into the past by whole years, keeping its shape
  (fraction, offset) intact; a string that is not a date-time is left alone for negative tests.
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


@schemathesis.hook
def map_body(ctx, body):
    if isinstance(body, dict) and isinstance(body.get("eventTime"), str):
        body = dict(body)
        body["eventTime"] = _in_the_past(body["eventTime"])
    return body


@schemathesis.hook
def flatmap_path_parameters(ctx, parameters):
    if isinstance(parameters, dict) and "app" in parameters:
        return st.sampled_from([parameters, {**parameters, "app": APP}])
    return st.just(parameters)
