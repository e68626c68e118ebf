export function EmptyState({ title }: { title: string }) {
  return <p className="empty">{title}</p>;
}
