// Deliveries tab: attempts, last status, Redeliver.
export function WebhookDeliveries() {
  return <table />;
}
