# The $CLAIM store for production (docs/deploy.md). Not built on our machines (only the npm registry and
# Debian's packages are reachable there); test/integration/prod-install.test.ts runs the same steps without
# Docker: a production-only install, the build copied in, npm run migrate, npm run start:prod, readiness, a sale.

# --- build: every dependency, the web app and the server compiled to JavaScript ---
FROM node:20.19-bookworm-slim AS build
WORKDIR /app
COPY package.json package-lock.json ./
COPY vendor ./vendor
RUN npm ci --no-audit --no-fund
COPY . .
RUN npm run build

# --- production: production dependencies, the build, a non-root user ---
FROM node:20.19-bookworm-slim AS production
ENV NODE_ENV=production \
    HOST=0.0.0.0 \
    PORT=3000 \
    DATABASE_URL=/data/store.sqlite
WORKDIR /app
COPY package.json package-lock.json ./
COPY vendor ./vendor
RUN npm ci --omit=dev --no-audit --no-fund && npm cache clean --force
COPY --from=build /app/dist ./dist
RUN mkdir -p /data && chown node:node /data
USER node
VOLUME ["/data"]
EXPOSE 3000
# Readiness as the load balancer reads it (the store answers); node's fetch, no curl in the slim image.
HEALTHCHECK --interval=10s --timeout=3s --start-period=20s --retries=3 \
  CMD ["node", "-e", "fetch('http://127.0.0.1:'+(process.env.PORT||3000)+'/api/health/ready').then(r=>process.exit(r.ok?0:1),()=>process.exit(1))"]
# The release step runs `npm run migrate` with the same image before new instances start.
CMD ["node", "--enable-source-maps", "dist/server/main.js"]
