import { useProjectQuota } from "./useProjectQuota";

export function ProjectPage({ id }: { id: number }) {
  const quota = useProjectQuota(id);
  return <section>{quota.data?.used_bytes}</section>;
}
