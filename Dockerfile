# Tag Guard's image: the production server (what `npm start` runs: server.mjs with its node flags,
# webhook intake before Remix, the worker on a thread of its own) on the build, with production
# dependencies only, as a user that is not root. docs/operations.md says how to run it (Docker,
# compose.yaml, Cloud Run, Fly.io); tests/deploy/image-steps.test.ts plays these steps without a
# container runtime, and fails when the run stage would need a development dependency.
#
#   docker build -t tag-guard .
#   docker run --rm -v tag-guard-data:/app/data --env-file .env tag-guard npm run setup   # each release, first
#   docker run -d -p 3000:3000 -v tag-guard-data:/app/data --env-file .env tag-guard

# Node's current LTS line, one of the two the suite runs on (decision 022).
ARG NODE_VERSION=26

FROM node:${NODE_VERSION}-trixie-slim AS base
WORKDIR /app

# What installing the dependencies reads: the manifests, and what their postinstall (the Prisma
# clients, prisma/tools/generate-clients.mjs) reads. Prisma's CLI takes its config from
# prisma.config.ts, which reaches the database through the app's own driver adapter: these four
# sources, and nothing else of app/. Without that config Prisma would fetch native engines.
FROM base AS manifests
COPY package.json package-lock.json prisma.config.ts ./
COPY prisma ./prisma
COPY app/database/connect.server.ts app/database/sqlite-write-lock.server.ts app/database/prisma-internals.server.ts ./app/database/
COPY app/platform/database-url.ts ./app/platform/

# Production dependencies only, the clients generated: with the build and the server, the image.
FROM manifests AS deps
RUN npm ci --omit=dev --no-audit --no-fund

# The build: every dependency, the sources, `npm run build` (Remix and Vite).
FROM manifests AS build
RUN npm ci --no-audit --no-fund
COPY . .
RUN npm run build

FROM base AS run
ENV NODE_ENV=production
ENV PORT=3000
# The release step (`npm run setup`) runs Prisma's CLI from here, with the same config and sources.
COPY --from=deps /app ./
COPY --from=build /app/build ./build
COPY server.mjs ./
# The SQLite default (file:./data/app.sqlite) lives on a volume the app's user can write; with
# PostgreSQL (DATABASE_URL) nothing is written there.
RUN mkdir -p data && chown node:node data
VOLUME /app/data
USER node
EXPOSE 3000
# Liveness: the process answers and its database does (/healthz). A load balancer routes on
# readiness instead, /readyz (docs/operations.md).
HEALTHCHECK --interval=30s --timeout=5s --start-period=60s --retries=3 \
  CMD ["node", "-e", "fetch(`http://127.0.0.1:${process.env.PORT}/healthz`).then((r) => process.exit(r.ok ? 0 : 1), () => process.exit(1))"]
# `npm start`'s own command (package.json; tests/structure/start-command.test.ts holds them equal),
# run directly: npm (11) passes no stop signal on and exits at once, and with it the container,
# killing the server mid-answer instead of letting it drain (decision 042). `env` sets the malloc
# arenas (decision 046) and becomes node, which so receives the stop signal itself.
CMD ["env", "MALLOC_ARENA_MAX=2", "node", "--max-semi-space-size=8", "--max-old-space-size=256", "server.mjs", "./build/server/index.js"]
