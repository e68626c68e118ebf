module.exports = { entry: "./src/index.tsx", devServer: { port: 8080 } };
