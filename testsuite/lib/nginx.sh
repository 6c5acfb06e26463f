# nginx.sh - a real nginx with WebDAV on a free loopback port, for the
# cases of the HTTP cache tier (testsuite/cases/remote/).  Source it, then:
#
#   nginx_start DIR     start one nginx (a single process, `master_process
#                       off`) serving DIR/root; sets NGINX_PID, NGINX_PORT,
#                       NGINX_URL (http://127.0.0.1:PORT) and NGINX_LOG (the
#                       access log: "METHOD URI STATUS" lines)
#   nginx_stop          stop it (by its pid)
#
# With NGINX_TLS=1, nginx also listens with TLS on NGINX_TLS_PORT
# (NGINX_TLS_URL=https://127.0.0.1:PORT) with a self-signed certificate
# that no CA store trusts (skip when openssl is missing).
#
# Locations (all over DIR/root):
#   /cache/  GET HEAD PUT DELETE MKCOL, create_full_put_path
#   /ro/     the same files, GET and HEAD only (a PUT gets 403)
#   /auth/   as /cache/, behind HTTP basic authentication:
#            user "builder", password from DIR/password (NGINX_PASSWORD)
#   /slow/   as /cache/, at 100 bytes per second
#   /slowauth/  GET at 100 bytes per second, behind the authentication
# Exits 77 (skip) with the reason when nginx or its dav module is missing.

nginx_free_port() {
	python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1]); s.close()'
}

nginx_start() {
	local dir=$1 bin i
	bin=$(command -v nginx || echo /usr/sbin/nginx)
	[ -x "$bin" ] || { echo "skipped: nginx is not installed (apt-get install nginx-core)" >&2; exit 77; }
	"$bin" -V 2>&1 | grep -q -- --with-http_dav_module ||
		{ echo "skipped: this nginx has no dav module (install nginx-core)" >&2; exit 77; }
	mkdir -p "$dir/root/cache" "$dir/tmp" "$dir/logs"
	ln -sfn cache "$dir/root/ro"
	ln -sfn cache "$dir/root/auth"
	ln -sfn cache "$dir/root/slow"
	ln -sfn cache "$dir/root/slowauth"
	NGINX_PASSWORD=${NGINX_PASSWORD:-pw-$RANDOM$RANDOM-not-to-be-seen}
	printf 'builder:{PLAIN}%s\n' "$NGINX_PASSWORD" > "$dir/htpasswd"
	NGINX_PORT=$(nginx_free_port)
	local user="" tls=""
	[ "$(id -u)" = 0 ] && user="user root root;"
	NGINX_TLS_URL=
	if [ "${NGINX_TLS:-0}" = 1 ]; then
		command -v openssl >/dev/null 2>&1 || { echo "skipped: no openssl to make a certificate" >&2; exit 77; }
		openssl req -x509 -newkey rsa:2048 -nodes -days 2 -subj /CN=127.0.0.1 \
			-keyout "$dir/tls.key" -out "$dir/tls.crt" > "$dir/logs/openssl.out" 2>&1 ||
			{ cat "$dir/logs/openssl.out" >&2; echo "skipped: openssl could not make a certificate" >&2; exit 77; }
		NGINX_TLS_PORT=$(nginx_free_port)
		tls="listen 127.0.0.1:$NGINX_TLS_PORT ssl; ssl_certificate $dir/tls.crt; ssl_certificate_key $dir/tls.key;"
	fi
	cat > "$dir/nginx.conf" <<EOC
$user
daemon off;
master_process off;
worker_processes 1;
pid $dir/nginx.pid;
error_log $dir/logs/error.log warn;
events { worker_connections 64; }
http {
	access_log $dir/logs/access.log;
	log_format short '\$request_method \$uri \$status';
	client_body_temp_path $dir/tmp/body;
	proxy_temp_path $dir/tmp/proxy;
	fastcgi_temp_path $dir/tmp/fastcgi;
	uwsgi_temp_path $dir/tmp/uwsgi;
	scgi_temp_path $dir/tmp/scgi;
	client_max_body_size 64m;
	server {
		listen 127.0.0.1:$NGINX_PORT;
		$tls
		root $dir/root;
		access_log $dir/logs/requests.log short;
		disable_symlinks off;
		location /cache/ {
			dav_methods PUT DELETE MKCOL;
			create_full_put_path on;
			dav_access user:rw group:r all:r;
		}
		location /ro/ {
			limit_except GET HEAD { deny all; }
		}
		location /auth/ {
			auth_basic "astra-cc cache";
			auth_basic_user_file $dir/htpasswd;
			dav_methods PUT DELETE MKCOL;
			create_full_put_path on;
		}
		location /slow/ {
			limit_rate 100;
			dav_methods PUT DELETE MKCOL;
			create_full_put_path on;
		}
		location /slowauth/ {
			limit_rate 100;
			auth_basic "astra-cc cache";
			auth_basic_user_file $dir/htpasswd;
		}
	}
}
EOC
	"$bin" -c "$dir/nginx.conf" -p "$dir" > "$dir/logs/stdout" 2>&1 &
	NGINX_PID=$!
	for i in $(seq 1 100); do
		if (exec 3<>"/dev/tcp/127.0.0.1/$NGINX_PORT") 2>/dev/null; then
			NGINX_URL=http://127.0.0.1:$NGINX_PORT
			NGINX_LOG=$dir/logs/requests.log
			[ -n "$tls" ] && NGINX_TLS_URL=https://127.0.0.1:$NGINX_TLS_PORT
			export NGINX_PID NGINX_PORT NGINX_URL NGINX_LOG NGINX_PASSWORD NGINX_TLS_URL
			return 0
		fi
		kill -0 "$NGINX_PID" 2>/dev/null || break
		sleep 0.05
	done
	cat "$dir/logs/stdout" "$dir/logs/error.log" >&2 2>/dev/null
	echo "skipped: nginx did not start on 127.0.0.1:$NGINX_PORT (see above)" >&2
	exit 77
}

nginx_stop() {
	[ -n "${NGINX_PID:-}" ] || return 0
	kill "$NGINX_PID" 2>/dev/null || true
	wait "$NGINX_PID" 2>/dev/null || true
	NGINX_PID=
	return 0
}
