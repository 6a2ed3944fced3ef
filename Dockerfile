# syntax=docker/dockerfile:1
# kubemod-ts operator image. Node 24 LTS; the native re2 addon is compiled in the build stages and
# only dist/src, the built playground page (dist/playground) and production node_modules reach the final image, which runs as a non-root user.
# scripts/build-artifact.sh produces the same /app tree without Docker (and test/e2e tests it);
# the releases use the daemonless, reproducible build instead (npm run image, docs/image-build.md),
# whose Node version (NODE_VERSION in scripts/image/build-image.sh) this one follows.

ARG NODE_IMAGE=node:24.21.0-bookworm-slim

# Toolchain for node-gyp (re2). DEVELOPMENT_SKIP_GETTING_ASSET: build re2 from source instead of
# downloading a prebuilt binary from GitHub.
FROM ${NODE_IMAGE} AS toolchain
RUN apt-get update \
  && apt-get install -y --no-install-recommends python3 make g++ \
  && rm -rf /var/lib/apt/lists/*
ENV DEVELOPMENT_SKIP_GETTING_ASSET=1 \
  npm_config_update_notifier=false \
  npm_config_fund=false \
  npm_config_audit=false
WORKDIR /app

# Compile TypeScript: dist/src. tsc needs no native addon, so install scripts are skipped here.
FROM toolchain AS build
COPY package.json package-lock.json ./
RUN npm ci --ignore-scripts
COPY tsconfig.json tsconfig.build.json ./
COPY src ./src
COPY scripts/playground ./scripts/playground
RUN npm run build

# Production dependencies only (re2 built for this Node, its build leftovers pruned).
FROM toolchain AS deps
COPY package.json package-lock.json ./
COPY scripts/prune-native-build.sh ./scripts/
RUN npm ci --omit=dev \
  && bash scripts/prune-native-build.sh node_modules \
  && npm cache clean --force

FROM ${NODE_IMAGE}
ENV NODE_ENV=production
WORKDIR /app
COPY --from=deps /app/package.json /app/package-lock.json ./
COPY --from=deps /app/node_modules ./node_modules
COPY --from=build /app/dist/src ./dist/src
COPY --from=build /app/dist/playground ./dist/playground
USER 65532:65532
EXPOSE 9443 8081
ENTRYPOINT ["node", "/app/dist/src/cli/main.js"]
CMD ["operator"]
