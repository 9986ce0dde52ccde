#!/bin/sh
# Starts Caddy for the webhook profile with what deploy/Caddyfile needs, taken from .env:
# the site is WEBHOOK_URL's host and port (443 unless the URL names 88 or 8443), the
# secret is WEBHOOK_SECRET, and the bots listen on WEBHOOK_PORT. Refuses to start without
# them, saying which is missing, rather than serve a site Telegram cannot use.
set -eu

fail() {
    echo "caddy-run: $*" >&2
    exit 2
}

case "${WEBHOOK_URL:-}" in
    https://*) ;;
    "") fail "WEBHOOK_URL is not set in .env: the public https:// URL Telegram calls" ;;
    *) fail "WEBHOOK_URL must start with https:// (Telegram calls webhooks over TLS only)" ;;
esac
rest=${WEBHOOK_URL#https://}
WEBHOOK_SITE=${rest%%/*}
case "$WEBHOOK_SITE" in
    *:*) ;;
    *) WEBHOOK_SITE="$WEBHOOK_SITE:443" ;;
esac
case "${WEBHOOK_SITE##*:}" in
    443 | 88 | 8443) ;;
    80) fail "port 80 is where Caddy answers the certificate authority's challenge and
redirects to https: put the webhook on 443, 88 or 8443" ;;
    *) fail "Telegram sends webhooks only to ports 443, 80, 88 and 8443, not ${WEBHOOK_SITE##*:}" ;;
esac
[ -n "${WEBHOOK_SECRET:-}" ] || fail "WEBHOOK_SECRET is not set in .env"
BOT_PORT=${WEBHOOK_PORT:-8080}
export WEBHOOK_SITE WEBHOOK_SECRET BOT_PORT

exec caddy run --config /etc/caddy/Caddyfile --adapter caddyfile
