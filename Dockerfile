# syntax=docker/dockerfile:1
# Build: docker build -t ringside .
# Run:   docker run -p 8000:8000 -v ringside-data:/data \
#          -e RINGSIDE_SECRET_KEY="$(python3 -c 'import secrets; print(secrets.token_hex(32))')" \
#          ringside
# Then:  docker exec -it CONTAINER ringside user add YOUR-NAME --admin
# A team (PostgreSQL, two app processes, a proxy): docker-compose.yml.

FROM python:3.11-slim AS build
ENV PIP_NO_CACHE_DIR=1 PIP_DISABLE_PIP_VERSION_CHECK=1
WORKDIR /src
RUN python -m venv /opt/venv
COPY pyproject.toml README.md requirements.lock ./
COPY app ./app
# The exact versions checked by `make audit`, not whatever is newest on the day of the build.
RUN /opt/venv/bin/pip install --constraint requirements.lock .

FROM python:3.11-slim
RUN useradd --create-home --uid 10001 ringside \
    && mkdir -p /data \
    && chown ringside:ringside /data
WORKDIR /srv/ringside
COPY --from=build /opt/venv /opt/venv
# The source tree sits beside its content, templates, static files and migrations;
# PYTHONPATH makes this copy of `app` the one imported, so it finds them.
COPY app ./app
COPY content ./content
COPY templates ./templates
COPY static ./static
COPY migrations ./migrations
ENV PATH=/opt/venv/bin:$PATH \
    PYTHONPATH=/srv/ringside \
    PYTHONUNBUFFERED=1 \
    RINGSIDE_DATABASE_URL=sqlite:////data/ringside.db \
    RINGSIDE_HOST=0.0.0.0 \
    RINGSIDE_PORT=8000 \
    RINGSIDE_AUTH_MODE=accounts
# Listening beyond loopback needs accounts (local mode has no sign-in): the image defaults to
# them, so it refuses to start until RINGSIDE_SECRET_KEY is given.
USER ringside
VOLUME ["/data"]
EXPOSE 8000
# uvicorn stops on SIGTERM (docker stop): requests in flight finish, then the app exits.
STOPSIGNAL SIGTERM
# Asks the port the app listens on (RINGSIDE_PORT), so the check follows a changed port.
HEALTHCHECK --interval=30s --timeout=3s --start-period=30s --retries=3 \
    CMD ["python", "-c", "import os, sys, urllib.request; port = os.environ.get('RINGSIDE_PORT', '8000'); sys.exit(urllib.request.urlopen(f'http://127.0.0.1:{port}/healthz', timeout=2).status != 200)"]
CMD ["ringside", "serve"]
