// cluster-key-slot (ioredis' own dependency) ships no types: the Redis Cluster hash slot (0-16383) of a key, its
// `{hash tag}` honoured.
declare module 'cluster-key-slot' {
  export default function calculateSlot(key: string | Buffer): number;
}
