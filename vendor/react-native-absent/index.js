// Nothing: the store's bundle uses the protocol's browser build, which does not import react-native.
throw new Error('react-native is not part of this store (vendor/react-native-absent).');
