export * from '@solana/pay';
