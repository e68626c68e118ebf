export function Alert({ message }: { message: string }) {
  return <div role="alert">{message}</div>;
}
