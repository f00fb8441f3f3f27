# product-config.sh — sourced by bench-peer.sh and bench/statement-mix.sh: the realistic configuration of
# `lifecycle serve` they measure. Uses $PY (the peer venv's interpreter), $DATA (the peer's generated data:
# jwks.json) and $ROOT (the repository: policies/), which the sourcing script sets.

# product_config DIR PORT WEBHOOK_PORT: the realistic configuration, in DIR/lifecycle.json.
product_config() {
  local dir="$1" port="$2" hook="$3"
  mkdir -p "$dir/secrets"
  printf 'whsec_%s\n' "$("$PY" -c 'import base64, os; print(base64.b64encode(os.urandom(32)).decode())')" \
    >"$dir/secrets/webhook-shop"
  chmod 600 "$dir/secrets/webhook-shop"
  sqlite3 "$dir/shop.sqlite" \
    "CREATE TABLE users (apple_sub TEXT, status TEXT, sessions INTEGER);
     CREATE TABLE comments (apple_sub TEXT, body TEXT);"
  cat >"$dir/lifecycle.json" <<JSON
{
  "storage": {"url": "sqlite:lifecycle.sqlite"},
  "public": {"host": "127.0.0.1", "port": $port, "notificationPath": "/notifications"},
  "admin": {"enabled": false},
  "apple": {"jwks": "$DATA/jwks.json"},
  "apps": [
    {
      "id": "shop",
      "clientIds": ["com.example.siwa.service"],
      "webhook": {"url": "http://127.0.0.1:$hook/hooks/lifecycle", "secretFile": "secrets/webhook-shop"},
      "policy": "default",
      "targets": {
        "app-db": {
          "type": "sqlite",
          "path": "shop.sqlite",
          "statements": ["DELETE FROM comments WHERE apple_sub = :sub", "DELETE FROM users WHERE apple_sub = :sub"],
          "verify": "SELECT (SELECT count(*) FROM users WHERE apple_sub = :sub) + (SELECT count(*) FROM comments WHERE apple_sub = :sub)"
        },
        "backend": {"type": "webhook"}
      },
      "categories": {
        "profile": ["app-db", "self"],
        "content": ["app-db"],
        "apple-tokens": ["backend", "self"],
        "relay-email": ["app-db", "self"],
        "login-records": ["backend"],
        "advertising-records": ["backend"],
        "payment-records": ["backend"],
        "complaint-records": ["backend"]
      },
      "records": {
        "type": "sqlite",
        "path": "shop.sqlite",
        "query": "SELECT apple_sub AS sub, status, sessions FROM users WHERE apple_sub IS NOT NULL"
      }
    }
  ],
  "policiesDirectory": "$ROOT/policies",
  "pseudonymKeyFile": "secrets/pseudonym.key",
  "secrets": {"masterKeyFile": "secrets/master.key"},
  "reports": {
    "directory": "reports",
    "signingKeyFile": "secrets/report-ed25519.pem",
    "pseudonymKeyFile": "secrets/report-pseudonym.key"
  },
  "logLevel": "info"
}
JSON
}
