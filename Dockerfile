# syntax=docker/dockerfile:1
FROM python:3.11-slim

ENV PYTHONDONTWRITEBYTECODE=1 \
    PYTHONUNBUFFERED=1 \
    PIP_NO_CACHE_DIR=1 \
    PIP_DISABLE_PIP_VERSION_CHECK=1 \
    OCHKO_NO_VENV=1 \
    DATABASE_URL=sqlite:////data/ochko.sqlite3 \
    HEARTBEAT_FILE=/data/ochko.heartbeat \
    MPLCONFIGDIR=/data/matplotlib \
    WEBHOOK_LISTEN=0.0.0.0 \
    WEBHOOK_PORT=8443 \
    WEBAPP_LISTEN=0.0.0.0 \
    WEBAPP_PORT=8081 \
    METRICS_LISTEN=0.0.0.0 \
    METRICS_PORT=9102

WORKDIR /app

# Dependencies first, pinned by the constraints file, in a layer of their own: it is rebuilt only
# when pyproject.toml or the pins change, not on every code change.
# The extras: /chart (matplotlib: 174 of the 311 MB of dependencies) and PostgreSQL (asyncpg,
# deploy/docker-compose.postgres.yml). A slimmer image: --build-arg EXTRAS=[postgres], or
# EXTRAS= (then /chart says charts are not installed, and a postgresql:// URL is refused).
ARG EXTRAS=[chart,postgres]
COPY pyproject.toml ./
COPY .ci/constraints.txt ./constraints.txt
RUN mkdir bot rules storage \
    && touch README.md bot/__init__.py rules/__init__.py storage/__init__.py \
    && pip install -c constraints.txt ".${EXTRAS}" \
    && pip uninstall -y ochko-bot \
    && rm -rf bot rules storage build ./*.egg-info

# Only the packages the bot runs.
COPY rules ./rules
COPY storage ./storage
COPY bot ./bot

RUN useradd --create-home --uid 10001 ochko \
    && mkdir /data \
    && chown ochko:ochko /data
USER 10001:10001
# The only place the bot writes (the database, the heartbeat, matplotlib's font cache), so the
# root file system can be mounted read-only (compose.yaml does).
VOLUME ["/data"]
# The webhook (WEBHOOK_URL set), the Mini App (WEBAPP_URL set) and the metrics with /healthz and
# /readyz (METRICS_ENABLED, when the Mini App is off) listen on all interfaces inside the
# container, each only when it is configured.
EXPOSE 8443 8081 9102

# Healthy while the bot's /healthz answers (its web server runs: the Mini App or the metrics),
# else while the event loop keeps touching its heartbeat file (bot/health.py).
HEALTHCHECK --interval=30s --timeout=5s --start-period=30s --retries=3 \
    CMD ["python", "-m", "bot.health"]

# SIGTERM (docker stop) ends polling, closes the database and exits within a few seconds.
STOPSIGNAL SIGTERM
CMD ["python", "-m", "bot"]
