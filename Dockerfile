# The project's roles (migrate, crawl, process, api) for docker-compose.yml.
FROM node:20-bookworm-slim
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci --omit=dev
COPY . .
# With the sources present, bin/veronikai.js runs them through tsx.
ENTRYPOINT ["node", "bin/veronikai.js"]
