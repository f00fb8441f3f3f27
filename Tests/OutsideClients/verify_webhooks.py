"""Verifies recorded outbox deliveries with the `standardwebhooks` package (the reference implementation of
the Standard Webhooks signature scheme), as an app backend would.

Input: a JSON file [{"headers": {name: value}, "body": base64}], and the secret in LIFECYCLE_WEBHOOK_SECRET.
Each delivery must verify; the same delivery with one body byte changed, or with the signature of another
delivery, must not. Prints {"verified": n, "refusedTampered": n} and exits 0 only when every check held.
"""

import base64
import json
import os
import sys

from standardwebhooks.webhooks import Webhook, WebhookVerificationError


def main(path):
    webhook = Webhook(os.environ["LIFECYCLE_WEBHOOK_SECRET"])
    deliveries = json.load(open(path))
    verified = refused = 0
    problems = []
    for index, delivery in enumerate(deliveries):
        body = base64.b64decode(delivery["body"])
        headers = delivery["headers"]
        try:
            webhook.verify(body, headers)
            verified += 1
        except WebhookVerificationError as error:
            problems.append("delivery %d (%s) does not verify: %s" % (index, headers.get("webhook-id"), error))
        tampered = bytearray(body)
        tampered[len(tampered) // 2] ^= 0x01
        others = [d for d in deliveries if d["headers"]["webhook-id"] != headers["webhook-id"]]
        forgeries = [bytes(tampered)]
        for forgery in forgeries:
            try:
                webhook.verify(forgery, headers)
                problems.append("delivery %d verifies with a changed body" % index)
            except WebhookVerificationError:
                refused += 1
        if others:
            swapped = dict(headers, **{"webhook-signature": others[0]["headers"]["webhook-signature"]})
            try:
                webhook.verify(body, swapped)
                problems.append("delivery %d verifies with another delivery's signature" % index)
            except WebhookVerificationError:
                refused += 1
    print(json.dumps({"verified": verified, "refusedTampered": refused, "problems": problems}))
    return 0 if not problems and verified == len(deliveries) else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1]))
