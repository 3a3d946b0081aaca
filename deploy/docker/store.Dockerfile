# syntax=docker/dockerfile:1
# The store node image (one member of the Raft group). Build from the repository root:
#   docker build -f deploy/docker/store.Dockerfile -t plat/store:0.1.0 .
# Runs `node --import tsx services/store/main.ts` as the unprivileged `node` user
# (uid 1000). The write-ahead log and snapshots live in the /var/lib/store volume.

FROM node:20-bookworm-slim AS deps
WORKDIR /app
COPY package.json package-lock.json ./
# `npm install`, not `npm ci`: see apiserver.Dockerfile (optional cbor-x accelerators).
RUN npm install --omit=dev --ignore-scripts --no-audit --no-fund && npm cache clean --force

FROM node:20-bookworm-slim
ENV NODE_ENV=production
WORKDIR /app
COPY --from=deps /app/node_modules ./node_modules
COPY package.json tsconfig.json ./
COPY shared ./shared
COPY services/store ./services/store
COPY deploy/docker/store-probe.ts ./deploy/docker/store-probe.ts
RUN mkdir -p /var/lib/store && chown node:node /var/lib/store
USER node
# 2379: client API (etcd v3 subset, gRPC); 2380: peer transport.
EXPOSE 2379 2380
VOLUME ["/var/lib/store"]
HEALTHCHECK --interval=10s --timeout=5s --start-period=60s --retries=3 \
  CMD ["node", "--import", "tsx", "deploy/docker/store-probe.ts", "127.0.0.1:2379"]
ENTRYPOINT ["node", "--import", "tsx", "services/store/main.ts"]
CMD ["--data-dir=/var/lib/store/data", "--listen-client-urls=http://0.0.0.0:2379", "--listen-peer-urls=http://0.0.0.0:2380"]
