# syntax=docker/dockerfile:1
# The apiserver replica image. Build from the repository root:
#   docker build -f deploy/docker/apiserver.Dockerfile -t plat/apiserver:0.1.0 .
# Runs `node --import tsx services/apiserver/main.ts` as the unprivileged `node` user
# (uid 1000); flags are the CMD (override them in compose or the chart).

FROM node:20-bookworm-slim AS deps
WORKDIR /app
COPY package.json package-lock.json ./
# `npm install`, not `npm ci`: the lock file leaves out the optional native accelerators of
# cbor-x for other platforms, which `npm ci` refuses as out of sync. Install scripts are
# not run (no compiler in the slim image); the pure JavaScript fallbacks are used.
RUN npm install --omit=dev --ignore-scripts --no-audit --no-fund && npm cache clean --force

FROM node:20-bookworm-slim
ENV NODE_ENV=production
WORKDIR /app
COPY --from=deps /app/node_modules ./node_modules
COPY package.json tsconfig.json ./
COPY shared ./shared
COPY services ./services
COPY deploy/docker/https-probe.ts ./deploy/docker/https-probe.ts
RUN mkdir -p /var/lib/apiserver && chown node:node /var/lib/apiserver
USER node
EXPOSE 6443
VOLUME ["/var/lib/apiserver"]
HEALTHCHECK --interval=10s --timeout=5s --start-period=60s --retries=3 \
  CMD ["node", "--import", "tsx", "deploy/docker/https-probe.ts", "https://127.0.0.1:6443/livez"]
ENTRYPOINT ["node", "--import", "tsx", "services/apiserver/main.ts"]
CMD ["--bind-address=0.0.0.0", "--secure-port=6443", "--data-dir=/var/lib/apiserver"]
