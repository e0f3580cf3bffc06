# The project's roles (migrate, crawl, process, api) for docker-compose.yml.
FROM node:20-bookworm-slim
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci --omit=dev
COPY . .
# Without a compiled dist/, bin/veronikai.js runs the TypeScript sources through tsx.
ENTRYPOINT ["node", "bin/veronikai.js"]
