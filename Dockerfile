# One image for every process of the Procfile; docker-compose.yml picks the command per service.
FROM node:20-slim AS build
WORKDIR /app
ENV SCARF_ANALYTICS=false
COPY package.json package-lock.json ./
# No install scripts here: `prepare` would compile before the sources are in, and no production
# dependency needs one (msgpackr-extract ships prebuilt binaries and is optional anyway).
# `npm install` only when `npm ci` refuses a lock file that lacks an optional package the registry does
# not serve (npm/cli#9846); it installs the same locked versions.
RUN npm ci --ignore-scripts --no-audit --no-fund || npm install --ignore-scripts --no-audit --no-fund
COPY . .
RUN npm run build && npm prune --omit=dev --ignore-scripts --no-audit --no-fund

FROM node:20-slim
WORKDIR /app
# Production: every process refuses to start without APP_SECRET (`openssl rand -hex 32`, one value for all
# containers), and the sandbox payment provider is off unless SANDBOX_ENABLED=1.
ENV NODE_ENV=production
COPY --from=build /app/package.json /app/package-lock.json /app/Procfile ./
COPY --from=build /app/node_modules ./node_modules
COPY --from=build /app/dist ./dist
COPY --from=build /app/fixtures ./fixtures
# The fonts embedded in invoice PDFs.
COPY --from=build /app/assets ./assets
# The guides /docs/{page} serves (errors, webhooks, versioning, ...).
COPY --from=build /app/docs ./docs
# The uploads directory is the only place the processes write to.
RUN mkdir -p .data/uploads && chown -R node:node .data
USER node
EXPOSE 3000
CMD ["node", "--max-old-space-size=192", "dist/api/server.js"]
