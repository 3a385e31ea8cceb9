/**
 * The wallet a page works with (the checkout's buyer, the console's payout wallet): the registered Wallet Standard
 * wallets (src/web/lib/wallets.ts), the one chosen (remembered in localStorage under `walletName`, the key the
 * product page's slot reads to load the checkout at once), its connected account, and the wallet picker
 * (./WalletPicker.tsx). `autoConnect`: a remembered wallet reconnects silently on load (only if it still trusts the
 * site; it never asks). No adapter library, no connection object: transactions go through src/web/lib/solana-rpc.ts.
 */
import {
  createContext,
  useCallback,
  useContext,
  useEffect,
  useMemo,
  useRef,
  useState,
  type ReactNode,
} from 'react';
import {
  connectWallet,
  currentWallets,
  disconnectWallet,
  offeredWallets,
  onAccountsChange,
  watchWallets,
  type Wallet,
  type WalletAccount,
} from '../lib/wallets';
import { WalletPicker, type PhonePaths } from './WalletPicker';

/** localStorage key of the chosen wallet's name. */
export const CHOSEN_WALLET_KEY = 'walletName';

function stored(): string | null {
  try {
    return window.localStorage.getItem(CHOSEN_WALLET_KEY);
  } catch {
    return null;
  }
}
function store(name: string | null): void {
  try {
    if (name) window.localStorage.setItem(CHOSEN_WALLET_KEY, name);
    else window.localStorage.removeItem(CHOSEN_WALLET_KEY);
  } catch {
    // storage disabled: the choice lasts for this page only
  }
}

export interface Connected {
  wallet: Wallet;
  account: WalletAccount;
}

export interface WalletSessionValue {
  /** The wallets to offer, in the picker's order. */
  wallets: Wallet[];
  /** The chosen wallet (connected or not). */
  wallet: Wallet | null;
  /** The chosen wallet's connected account. */
  account: WalletAccount | null;
  connecting: boolean;
  /** Opens the picker; focus returns to the control that had it when it closes. */
  openPicker: () => void;
  pickerOpen: boolean;
  /** Connects `wallet` (asking the user), makes it the chosen one; resolves to its account. */
  connect: (wallet: Wallet) => Promise<Connected>;
  disconnect: () => Promise<void>;
}

const Ctx = createContext<WalletSessionValue | null>(null);

export function useWalletSession(): WalletSessionValue {
  const v = useContext(Ctx);
  if (!v) throw new Error('useWalletSession outside WalletSessionProvider');
  return v;
}

/** What the page inside the provider adds to the picker (set through useWalletHandlers). */
export interface WalletHandlers {
  /** The checkout's "no wallet on this phone" paths (shown in the picker on a touch screen). */
  phonePaths?: PhonePaths;
  /** A connect chosen in the picker failed (declined, no wallet app answered): the page says so. */
  onConnectError?: (err: unknown, wallet: Wallet) => void;
  /** The page handles a choice itself (the console's sign-in: `solana:signIn` connects as it signs). */
  onChoose?: (wallet: Wallet) => void;
}
const HandlersCtx = createContext<{ current: WalletHandlers }>({ current: {} });

/** The page (inside the provider) sets its picker handlers; the latest render's win. */
export function useWalletHandlers(handlers: WalletHandlers): void {
  const holder = useContext(HandlersCtx);
  useEffect(() => {
    holder.current = handlers;
  });
}

export function WalletSessionProvider({
  autoConnect,
  children,
}: {
  autoConnect: boolean;
  children: ReactNode;
}) {
  const handlers = useRef<WalletHandlers>({});
  const [registered, setRegistered] = useState<readonly Wallet[]>(() => currentWallets());
  const [chosenName, setChosenName] = useState<string | null>(null);
  const [account, setAccount] = useState<WalletAccount | null>(null);
  const [connecting, setConnecting] = useState(false);
  const [pickerOpen, setPickerOpen] = useState(false);
  const opener = useRef<HTMLElement | null>(null);
  const triedSilent = useRef(false);

  useEffect(() => watchWallets(setRegistered), []);
  const wallets = useMemo(() => offeredWallets(registered), [registered]);
  const wallet = useMemo(
    () => (chosenName ? (wallets.find((w) => w.name === chosenName) ?? null) : null),
    [wallets, chosenName],
  );

  // The remembered wallet: chosen again on load; reconnected silently when the page asks for it.
  useEffect(() => {
    const name = stored();
    if (name) setChosenName(name);
  }, []);
  useEffect(() => {
    if (!autoConnect || !wallet || account || triedSilent.current) return;
    triedSilent.current = true;
    connectWallet(wallet, true).then(
      (a) => {
        if (a) setAccount(a);
      },
      () => undefined, // not trusted any more: the buyer connects again with a click
    );
  }, [autoConnect, wallet, account]);

  // The wallet switched accounts or disconnected itself.
  useEffect(() => {
    if (!wallet) return;
    return onAccountsChange(wallet, (accounts) => {
      setAccount((current) => {
        if (accounts.length === 0) return null;
        return accounts.find((a) => a.address === current?.address) ?? accounts[0] ?? null;
      });
    });
  }, [wallet]);

  const connect = useCallback(async (w: Wallet): Promise<Connected> => {
    setChosenName(w.name);
    store(w.name);
    setConnecting(true);
    try {
      const a = await connectWallet(w);
      if (!a) throw new Error(`${w.name} connected no account`);
      setAccount(a);
      return { wallet: w, account: a };
    } finally {
      setConnecting(false);
    }
  }, []);

  const disconnect = useCallback(async () => {
    const w = wallet;
    setAccount(null);
    setChosenName(null);
    store(null);
    if (w) await disconnectWallet(w).catch(() => undefined);
  }, [wallet]);

  const openPicker = useCallback(() => {
    const active = document.activeElement;
    opener.current = active instanceof HTMLElement && active !== document.body ? active : null;
    setPickerOpen(true);
  }, []);

  const closed = useCallback(() => {
    setPickerOpen(false);
    const back = opener.current;
    opener.current = null;
    // Focus already moved on (a choice in the picker opened the order's status): it stays there.
    const active = document.activeElement;
    if (active instanceof HTMLElement && active !== document.body && !active.closest('.wallet-picker'))
      return;
    // The opener may have been replaced meanwhile (Select Wallet becomes the connected wallet's button).
    const target =
      back?.isConnected && !(back as HTMLButtonElement).disabled
        ? back
        : document.querySelector<HTMLElement>('.wallet-button');
    target?.focus();
  }, []);

  const choose = useCallback(
    (w: Wallet) => {
      const own = handlers.current.onChoose;
      if (own) {
        setChosenName(w.name);
        store(w.name);
        own(w);
        return;
      }
      connect(w).catch((err: unknown) => {
        console.warn('Wallet connect stopped:', err);
        handlers.current.onConnectError?.(err, w);
      });
    },
    [connect],
  );

  const value = useMemo<WalletSessionValue>(
    () => ({ wallets, wallet, account, connecting, openPicker, pickerOpen, connect, disconnect }),
    [wallets, wallet, account, connecting, openPicker, pickerOpen, connect, disconnect],
  );
  return (
    <Ctx.Provider value={value}>
      <HandlersCtx.Provider value={handlers}>{children}</HandlersCtx.Provider>
      {pickerOpen && (
        <WalletPicker
          wallets={wallets}
          connected={account ? wallet : null}
          onChoose={choose}
          onDisconnect={() => void disconnect()}
          onClosed={closed}
          phonePaths={handlers.current.phonePaths}
        />
      )}
    </Ctx.Provider>
  );
}
