//! TLS to the team store with rustls (ring provider), as libpq reads a URL's `sslmode` and
//! `sslrootcert`:
//!
//! - `disable`: plain TCP.
//! - `prefer` (the default): TLS when the server offers it, plain TCP when it does not; the
//!   certificate is not verified (as libpq), unless `sslrootcert` is given.
//! - `require`: TLS or no connection; not verified unless `sslrootcert` is given (then as
//!   `verify-ca`, as libpq).
//! - `verify-ca`: the server's certificate must chain to a trusted root; `verify-full`: and
//!   name the host of the URL.
//!
//! Trusted roots: the PEM file `sslrootcert=PATH` (a private CA), else `~/.postgresql/root.crt`
//! when it exists (libpq's default), else the system's trust store (`sslrootcert=system`
//! asks for it explicitly). The driver (`tokio-postgres`) knows only `disable` / `prefer` /
//! `require` and no `sslrootcert`: [`split`] takes both out of the URL before it parses it.
//! Channel binding (`SCRAM-SHA-256-PLUS`) is not offered: SCRAM runs without it.

use std::future::Future;
use std::io;
use std::path::{Path, PathBuf};
use std::pin::Pin;
use std::sync::Arc;
use std::task::{Context, Poll};

use percent_encoding::percent_decode_str;
use postgres::tls::{ChannelBinding, MakeTlsConnect, TlsConnect, TlsStream};
use rustls::client::danger::{HandshakeSignatureValid, ServerCertVerified, ServerCertVerifier};
use rustls::client::WebPkiServerVerifier;
use rustls::crypto::{verify_tls12_signature, verify_tls13_signature, CryptoProvider};
use rustls::pki_types::pem::PemObject;
use rustls::pki_types::{CertificateDer, ServerName, UnixTime};
use rustls::{
    CertificateError, ClientConfig, DigitallySignedStruct, RootCertStore, SignatureScheme,
};
use scry_model::ErrorCode;
use scry_query::QueryError;
use tokio::io::{AsyncRead, AsyncWrite, ReadBuf};

/// The URL's `sslmode`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Mode {
    /// No TLS.
    Disable,
    /// TLS when the server offers it.
    #[default]
    Prefer,
    /// TLS, not verified (unless a root certificate is given).
    Require,
    /// TLS, the certificate chains to a trusted root.
    VerifyCa,
    /// TLS, the certificate chains to a trusted root and names the host.
    VerifyFull,
}

/// The TLS settings of a URL.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Tls {
    /// `sslmode`.
    pub mode: Mode,
    /// `sslrootcert`: a PEM file, or `system`.
    pub rootcert: Option<String>,
}

impl Tls {
    /// The mode the driver is given (it knows no verify-*).
    fn driver_mode(&self) -> &'static str {
        match self.mode {
            Mode::Disable => "disable",
            Mode::Prefer => "prefer",
            _ => "require",
        }
    }

    /// Whether the certificate is checked against trusted roots, and the host name too.
    fn verify(&self) -> Option<bool> {
        match self.mode {
            Mode::VerifyFull => Some(true),
            Mode::VerifyCa => Some(false),
            _ if self.rootcert.is_some() => Some(false),
            _ => None,
        }
    }
}

fn bad(what: String) -> QueryError {
    QueryError::usage(ErrorCode::InvalidQuery, what)
}

fn mode_of(v: &str) -> Result<Mode, QueryError> {
    Ok(match v {
        "disable" => Mode::Disable,
        "allow" | "prefer" => Mode::Prefer,
        "require" => Mode::Require,
        "verify-ca" => Mode::VerifyCa,
        "verify-full" => Mode::VerifyFull,
        _ => {
            return Err(bad(format!(
                "invalid sslmode {v:?} in the team store URL: use disable, prefer, require, \
                 verify-ca or verify-full"
            )))
        }
    })
}

/// Takes `sslmode` and `sslrootcert` out of `url` (a `postgres://` URL or a `key=value`
/// string): the URL for the driver (with the `sslmode` it knows) and the TLS settings.
pub fn split(url: &str) -> Result<(String, Tls), QueryError> {
    let mut tls = Tls::default();
    let mut take = |k: &str, v: &str| -> Result<bool, QueryError> {
        match k {
            "sslmode" => tls.mode = mode_of(v)?,
            "sslrootcert" => tls.rootcert = Some(v.to_string()),
            _ => return Ok(false),
        }
        Ok(true)
    };
    let is_url = url.starts_with("postgres://") || url.starts_with("postgresql://");
    let (base, kept) = if is_url {
        let (base, query) = url.split_once('?').unwrap_or((url, ""));
        let mut kept = Vec::new();
        for pair in query.split('&').filter(|p| !p.is_empty()) {
            let (k, v) = pair.split_once('=').unwrap_or((pair, ""));
            let (k, v) = (
                percent_decode_str(k).decode_utf8_lossy(),
                percent_decode_str(v).decode_utf8_lossy(),
            );
            if !take(&k, &v)? {
                kept.push(pair.to_string());
            }
        }
        (base, kept)
    } else {
        let mut kept = Vec::new();
        for (k, v) in key_values(url)? {
            if !take(&k, &v)? {
                let v = v.replace('\\', "\\\\").replace('\'', "\\'");
                kept.push(format!("{k}='{v}'"));
            }
        }
        ("", kept)
    };
    let mut kept = kept;
    kept.push(format!("sslmode={}", tls.driver_mode()));
    let driver = if is_url {
        format!("{base}?{}", kept.join("&"))
    } else {
        kept.join(" ")
    };
    Ok((driver, tls))
}

/// The pairs of a `key=value` connection string (values may be single-quoted, `\` escapes).
fn key_values(s: &str) -> Result<Vec<(String, String)>, QueryError> {
    let mut out = Vec::new();
    let mut chars = s.chars().peekable();
    loop {
        while chars.next_if(|c| c.is_whitespace()).is_some() {}
        if chars.peek().is_none() {
            return Ok(out);
        }
        let mut key = String::new();
        while let Some(c) = chars.next_if(|c| *c != '=' && !c.is_whitespace()) {
            key.push(c);
        }
        while chars.next_if(|c| c.is_whitespace()).is_some() {}
        if chars.next() != Some('=') {
            return Err(bad(format!(
                "invalid team store connection string: {key:?} has no value"
            )));
        }
        while chars.next_if(|c| c.is_whitespace()).is_some() {}
        let mut value = String::new();
        if chars.next_if_eq(&'\'').is_some() {
            loop {
                match chars.next() {
                    Some('\'') => break,
                    Some('\\') => value.extend(chars.next()),
                    Some(c) => value.push(c),
                    None => {
                        return Err(bad(format!(
                            "invalid team store connection string: the value of {key:?} has \
                             no closing quote"
                        )))
                    }
                }
            }
        } else {
            while let Some(c) = chars.next_if(|c| !c.is_whitespace()) {
                if c == '\\' {
                    value.extend(chars.next());
                } else {
                    value.push(c);
                }
            }
        }
        out.push((key, value));
    }
}

/// The connector for `tls`, or `None` for `sslmode=disable`. A root certificate file that
/// cannot be read, or holds no certificate, is a usage error naming it.
pub fn connector(tls: &Tls) -> Result<Option<Rustls>, QueryError> {
    if tls.mode == Mode::Disable {
        return Ok(None);
    }
    // ring (deprecated since rustls 0.23.48 only for lacking post-quantum key exchange) builds
    // with a C compiler alone; aws-lc-rs would need cmake and more build time.
    #[allow(deprecated)]
    let provider = Arc::new(rustls::crypto::ring::default_provider());
    let builder = ClientConfig::builder_with_provider(provider.clone())
        .with_safe_default_protocol_versions()
        .map_err(|e| bad(format!("TLS setup failed: {e}")))?;
    let verifier: Arc<dyn ServerCertVerifier> = match tls.verify() {
        None => Arc::new(Unverified(provider)),
        Some(full) => {
            let roots = Arc::new(roots(tls.rootcert.as_deref())?);
            let webpki = WebPkiServerVerifier::builder_with_provider(roots, provider)
                .build()
                .map_err(|e| bad(format!("TLS setup failed: {e}")))?;
            if full {
                webpki
            } else {
                Arc::new(AnyName(webpki))
            }
        }
    };
    let config = builder
        .dangerous()
        .with_custom_certificate_verifier(verifier)
        .with_no_client_auth();
    Ok(Some(Rustls(Arc::new(config))))
}

/// The trusted roots: the file `rootcert`, `system`, or libpq's default file, else the system.
fn roots(rootcert: Option<&str>) -> Result<RootCertStore, QueryError> {
    let default = std::env::var_os("HOME")
        .map(|h| PathBuf::from(h).join(".postgresql/root.crt"))
        .filter(|p| p.is_file());
    let file = match rootcert {
        Some("system") => None,
        Some(path) => Some(PathBuf::from(path)),
        None => default,
    };
    let mut store = RootCertStore::empty();
    match file {
        Some(path) => {
            let certs = read_pem(&path)?;
            let (added, _) = store.add_parsable_certificates(certs);
            if added == 0 {
                return Err(bad(format!(
                    "sslrootcert {}: no usable certificate in it",
                    path.display()
                )));
            }
        }
        None => {
            let found = rustls_native_certs::load_native_certs();
            store.add_parsable_certificates(found.certs);
            if store.is_empty() {
                return Err(bad(
                    "sslmode verify-*: the system's trust store holds no certificate: give the \
                     server's CA with sslrootcert=PATH"
                        .to_string(),
                ));
            }
        }
    }
    Ok(store)
}

fn read_pem(path: &Path) -> Result<Vec<CertificateDer<'static>>, QueryError> {
    let text = std::fs::read(path)
        .map_err(|e| bad(format!("cannot read sslrootcert {}: {e}", path.display())))?;
    CertificateDer::pem_slice_iter(&text)
        .collect::<Result<Vec<_>, _>>()
        .map_err(|e| {
            bad(format!(
                "sslrootcert {}: not a PEM certificate file ({e:?})",
                path.display()
            ))
        })
}

/// `sslmode=prefer` / `require` without roots: the handshake's signatures are checked, the
/// certificate is not (libpq's behaviour: encryption against passive listeners only).
#[derive(Debug)]
struct Unverified(Arc<CryptoProvider>);

impl ServerCertVerifier for Unverified {
    fn verify_server_cert(
        &self,
        _end_entity: &CertificateDer<'_>,
        _intermediates: &[CertificateDer<'_>],
        _server_name: &ServerName<'_>,
        _ocsp_response: &[u8],
        _now: UnixTime,
    ) -> Result<ServerCertVerified, rustls::Error> {
        Ok(ServerCertVerified::assertion())
    }

    fn verify_tls12_signature(
        &self,
        message: &[u8],
        cert: &CertificateDer<'_>,
        dss: &DigitallySignedStruct,
    ) -> Result<HandshakeSignatureValid, rustls::Error> {
        verify_tls12_signature(
            message,
            cert,
            dss,
            &self.0.signature_verification_algorithms,
        )
    }

    fn verify_tls13_signature(
        &self,
        message: &[u8],
        cert: &CertificateDer<'_>,
        dss: &DigitallySignedStruct,
    ) -> Result<HandshakeSignatureValid, rustls::Error> {
        verify_tls13_signature(
            message,
            cert,
            dss,
            &self.0.signature_verification_algorithms,
        )
    }

    fn supported_verify_schemes(&self) -> Vec<SignatureScheme> {
        self.0.signature_verification_algorithms.supported_schemes()
    }
}

/// `verify-ca`: the chain must verify, the name may differ.
#[derive(Debug)]
struct AnyName(Arc<WebPkiServerVerifier>);

impl ServerCertVerifier for AnyName {
    fn verify_server_cert(
        &self,
        end_entity: &CertificateDer<'_>,
        intermediates: &[CertificateDer<'_>],
        server_name: &ServerName<'_>,
        ocsp_response: &[u8],
        now: UnixTime,
    ) -> Result<ServerCertVerified, rustls::Error> {
        match self
            .0
            .verify_server_cert(end_entity, intermediates, server_name, ocsp_response, now)
        {
            Err(rustls::Error::InvalidCertificate(
                CertificateError::NotValidForName | CertificateError::NotValidForNameContext { .. },
            )) => Ok(ServerCertVerified::assertion()),
            other => other,
        }
    }

    fn verify_tls12_signature(
        &self,
        message: &[u8],
        cert: &CertificateDer<'_>,
        dss: &DigitallySignedStruct,
    ) -> Result<HandshakeSignatureValid, rustls::Error> {
        self.0.verify_tls12_signature(message, cert, dss)
    }

    fn verify_tls13_signature(
        &self,
        message: &[u8],
        cert: &CertificateDer<'_>,
        dss: &DigitallySignedStruct,
    ) -> Result<HandshakeSignatureValid, rustls::Error> {
        self.0.verify_tls13_signature(message, cert, dss)
    }

    fn supported_verify_schemes(&self) -> Vec<SignatureScheme> {
        self.0.supported_verify_schemes()
    }
}

/// The rustls connector handed to the driver.
#[derive(Clone)]
pub struct Rustls(Arc<ClientConfig>);

impl std::fmt::Debug for Rustls {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Rustls")
    }
}

impl<S> MakeTlsConnect<S> for Rustls
where
    S: AsyncRead + AsyncWrite + Unpin + Send + 'static,
{
    type Stream = Stream<S>;
    type TlsConnect = Connect;
    type Error = rustls::pki_types::InvalidDnsNameError;

    fn make_tls_connect(&mut self, domain: &str) -> Result<Connect, Self::Error> {
        Ok(Connect {
            config: self.0.clone(),
            name: ServerName::try_from(domain)?.to_owned(),
        })
    }
}

/// One connection's TLS handshake.
pub struct Connect {
    config: Arc<ClientConfig>,
    name: ServerName<'static>,
}

impl<S> TlsConnect<S> for Connect
where
    S: AsyncRead + AsyncWrite + Unpin + Send + 'static,
{
    type Stream = Stream<S>;
    type Error = io::Error;
    type Future = Pin<Box<dyn Future<Output = io::Result<Stream<S>>> + Send>>;

    fn connect(self, stream: S) -> Self::Future {
        let connector = tokio_rustls::TlsConnector::from(self.config);
        Box::pin(async move { connector.connect(self.name, stream).await.map(Stream) })
    }
}

/// A TLS stream to the server.
pub struct Stream<S>(tokio_rustls::client::TlsStream<S>);

impl<S: AsyncRead + AsyncWrite + Unpin> TlsStream for Stream<S> {
    fn channel_binding(&self) -> ChannelBinding {
        ChannelBinding::none()
    }
}

impl<S: AsyncRead + AsyncWrite + Unpin> AsyncRead for Stream<S> {
    fn poll_read(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<io::Result<()>> {
        Pin::new(&mut self.0).poll_read(cx, buf)
    }
}

impl<S: AsyncRead + AsyncWrite + Unpin> AsyncWrite for Stream<S> {
    fn poll_write(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &[u8],
    ) -> Poll<io::Result<usize>> {
        Pin::new(&mut self.0).poll_write(cx, buf)
    }

    fn poll_flush(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.0).poll_flush(cx)
    }

    fn poll_shutdown(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.0).poll_shutdown(cx)
    }
}

/// The certificate problem in `e`'s causes, for the one-line message.
pub fn certificate_problem(e: &(dyn std::error::Error + 'static)) -> Option<String> {
    let mut cur: Option<&(dyn std::error::Error + 'static)> = Some(e);
    while let Some(err) = cur {
        if let Some(rustls::Error::InvalidCertificate(c)) = err.downcast_ref::<rustls::Error>() {
            return Some(format!("{c:?}"));
        }
        if let Some(io) = err.downcast_ref::<io::Error>() {
            if let Some(inner) = io.get_ref() {
                if let Some(rustls::Error::InvalidCertificate(c)) =
                    inner.downcast_ref::<rustls::Error>()
                {
                    return Some(format!("{c:?}"));
                }
            }
        }
        cur = err.source();
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sslmode_and_sslrootcert_leave_the_url_for_the_driver() {
        let (u, t) =
            split("postgres://a@h:5/db?sslmode=verify-full&sslrootcert=%2Ftmp%2Fca.pem&x=1")
                .expect("split");
        assert_eq!(u, "postgres://a@h:5/db?x=1&sslmode=require");
        assert_eq!(t.mode, Mode::VerifyFull);
        assert_eq!(t.rootcert.as_deref(), Some("/tmp/ca.pem"));
        let (u, t) = split("postgres://a@h/db").expect("split");
        assert_eq!(u, "postgres://a@h/db?sslmode=prefer");
        assert_eq!(t, Tls::default());
        let (u, t) = split("host=h user='a b' sslmode = disable").expect("split");
        assert_eq!(u, "host='h' user='a b' sslmode=disable");
        assert_eq!(t.mode, Mode::Disable);
        assert_eq!(t.verify(), None);
        let (_, t) = split("postgres://h/db?sslmode=require&sslrootcert=ca.pem").expect("split");
        assert_eq!(t.verify(), Some(false), "require with a root = verify-ca");
        let e = split("postgres://h/db?sslmode=sometimes").unwrap_err();
        assert!(e.message.contains("\"sometimes\""), "{}", e.message);
        assert!(split("host='h").is_err());
    }

    #[test]
    fn an_unreadable_root_certificate_is_named() {
        let tls = Tls {
            mode: Mode::VerifyFull,
            rootcert: Some("/nonexistent/ca.pem".into()),
        };
        let e = connector(&tls).expect_err("an unreadable root");
        assert!(e.message.contains("/nonexistent/ca.pem"), "{}", e.message);
        assert_eq!(e.code, ErrorCode::InvalidQuery);
    }
}
