#ifndef WAYMARK_COPENSSL_SHIM_H
#define WAYMARK_COPENSSL_SHIM_H
#include <openssl/evp.h>
#include <openssl/hmac.h>
#include <openssl/sha.h>
#include <openssl/crypto.h>
#include <openssl/rand.h>
#include <openssl/pem.h>
#include <openssl/bio.h>
#endif
